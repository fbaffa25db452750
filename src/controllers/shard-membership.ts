/**
 * This replica's part in sharding (docs/sharding.md): a member Lease renewed like a leader-election
 * Lease, and one Lease per bucket naming its holder. Every retry period it reads the group's Leases,
 * gives back the buckets beyond its fair share (after draining them) and takes free ones up to it,
 * and runs the controllers for the buckets it holds, restarting them whenever that set changes.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { planShardMoves, type BucketHolder } from '../core/index.ts';
import type { Clock } from '../engine/index.ts';
import { isAlreadyExists, isConflict, isNotFound, type ObjectWriter } from '../kube/index.ts';
import { liveHolder, microTime, type Lease, type LeaseSpec } from './lease.ts';
import { keepRenewing } from './lease-renewal.ts';
import { type MemberSightings, removeStaleMembers } from './stale-members.ts';

/** The label every Lease of one sharded deployment carries, valued with the group's name. */
export const SHARD_GROUP_LABEL = 'loom.dev/shard-group';

/** Where the Leases live, who we are, and how the buckets are split. */
export interface ShardMembershipOptions {
  writer: ObjectWriter;
  /** The Leases in `namespace` labelled {@link SHARD_GROUP_LABEL}=`group`. */
  listLeases(signal: AbortSignal): Promise<Lease[]>;
  clock: Clock;
  logger: Logger;
  namespace: string;
  /** Names the Leases: `<group>-member-…` and `<group>-shard-<bucket>`. */
  group: string;
  identity: string;
  buckets: number;
  leaseDurationMs?: number | undefined;
  renewDeadlineMs?: number | undefined;
  retryPeriodMs?: number | undefined;
  /** Told the buckets held after every change, and each bucket taken or given back. */
  observe?: ShardObserver | undefined;
}

/** What the metrics see of sharding. */
export interface ShardObserver {
  held(buckets: number): void;
  handover(direction: 'acquired' | 'released', buckets: number): void;
}

/** Runs the controllers of the buckets in `held` until `signal` aborts, draining before it resolves. */
export type RunShards = (held: ReadonlySet<number>, signal: AbortSignal) => Promise<void>;

const DEFAULT_LEASE_MS = 15_000;
const DEFAULT_RENEW_DEADLINE_MS = 10_000;
const DEFAULT_RETRY_MS = 2_000;

/** The member Lease's name: the identity (a hostname and a UUID) is too long and too free-form for one. */
export function memberLeaseName(group: string, identity: string): string {
  return `${group}-member-${createHash('sha256').update(identity).digest('hex').slice(0, 16)}`;
}

function bucketLeaseName(group: string, bucket: number): string {
  return `${group}-shard-${bucket}`;
}

const BUCKET_NAME = /-shard-(\d+)$/;

/** The identities whose member Leases are alive, this replica's always among them. */
function liveMembers(leases: readonly Lease[], group: string, identity: string, now: number): Set<string> {
  const members = new Set<string>([identity]);
  for (const lease of leases) {
    const holder = (lease.metadata.name ?? '').startsWith(`${group}-member-`) ? liveHolder(lease, now) : undefined;
    if (holder) members.add(holder);
  }
  return members;
}

/** Each bucket's holder, when it is a live member (a bucket whose holder is gone is free). */
function bucketHolders(leases: readonly Lease[], group: string, members: ReadonlySet<string>): BucketHolder[] {
  const holders: BucketHolder[] = [];
  for (const lease of leases) {
    const name = lease.metadata.name ?? '';
    const match = name.startsWith(`${group}-shard-`) ? BUCKET_NAME.exec(name) : null;
    if (!match) continue;
    const holder = lease.spec?.holderIdentity;
    holders.push({ bucket: Number(match[1]), holder: holder && members.has(holder) ? holder : undefined });
  }
  return holders;
}

/**
 * Takes part in sharding until `signal` aborts: runs `run` for the buckets held, restarting it on every
 * change, and on the way out drains it, gives the buckets back and lets the member Lease go, so the
 * others take over within a retry period. The member Lease is renewed on a loop of its own, through
 * every drain: a replica busy draining a bucket is still alive, and must not look gone while its syncs
 * still write. Rejects (after draining) when the Lease could not be renewed for the renew deadline,
 * since by then others may treat this replica as gone.
 */
export async function runShardMember(options: ShardMembershipOptions, run: RunShards, signal: AbortSignal): Promise<void> {
  const member = new ShardMember(options, run);
  const lost = new AbortController();
  const stopRenewing = new AbortController();
  const renewing = member.keepRenewing(stopRenewing.signal, lost);
  // Past the renew deadline others may take the buckets soon: stop the syncs now, not when the
  // rebalance in progress returns.
  lost.signal.addEventListener('abort', () => member.stopRunning(), { once: true });
  try {
    await member.rebalanceUntil(AbortSignal.any([signal, lost.signal]));
  } finally {
    await member.drain();
    stopRenewing.abort();
    await renewing;
    await member.leave(lost.signal.aborted);
  }
  if (lost.signal.aborted) throw lost.signal.reason;
}

class ShardMember {
  private held: ReadonlySet<number> = new Set();
  private releasing: readonly number[] = [];
  /** The other members' Leases as this replica last saw them, to tell the gone from the live (stale-members.ts). */
  private sightings: MemberSightings = new Map();
  /** Settles with the first successful renewal: no bucket is taken before this replica is a member others can see. */
  private readonly firstRenewal: Promise<void>;
  private markRenewed: () => void = () => undefined;
  private running: { stop: AbortController; done: Promise<void> } | undefined;
  private readonly options: ShardMembershipOptions;
  private readonly run: RunShards;
  private readonly lease: number;
  private readonly retry: number;
  private readonly deadline: number;

  constructor(options: ShardMembershipOptions, run: RunShards) {
    this.options = options;
    this.run = run;
    this.lease = options.leaseDurationMs ?? DEFAULT_LEASE_MS;
    this.retry = options.retryPeriodMs ?? DEFAULT_RETRY_MS;
    this.deadline = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.firstRenewal = new Promise((resolve) => (this.markRenewed = resolve));
  }

  /**
   * Renews the member Lease every retry period until `stop` aborts; aborts `lost` at the renew deadline
   * when no renewal has succeeded by then, including while one hangs (`lease-renewal.ts`).
   */
  async keepRenewing(stop: AbortSignal, lost: AbortController): Promise<void> {
    const { clock, logger } = this.options;
    const end = await keepRenewing({
      clock, retryPeriodMs: this.retry, renewDeadlineMs: this.deadline,
      renew: (signal) => this.renewMember(signal),
      onRenewed: () => this.markRenewed(),
      onFailed: (err) => logger.warn({ err }, 'sharding: could not renew the member Lease'),
    }, stop);
    if (end.outcome === 'lost') {
      lost.abort(new Error(`could not renew the member Lease for ${this.deadline} ms; stopping so that a restart rejoins`, { cause: end.cause }));
    }
  }

  /** Reads the Leases and moves buckets every retry period until `signal` aborts. */
  async rebalanceUntil(signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.options;
    await Promise.race([this.firstRenewal, new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
    while (!signal.aborted) {
      await this.rebalance(signal).catch((err: unknown) => {
        if (!signal.aborted) logger.warn({ err }, 'sharding: could not read or write the shard Leases');
      });
      await clock.sleep(this.retry, signal).catch(() => undefined);
    }
  }

  /** Signals the controllers to stop, without waiting for them (their drain is {@link drain}'s). */
  stopRunning(): void {
    this.running?.stop.abort();
  }

  /** Stops the controllers, waiting for their syncs to end. */
  async drain(): Promise<void> {
    this.releasing = [...this.held];
    await this.restart(new Set());
  }

  /**
   * After {@link drain}: gives every bucket back and deletes the member Lease (each start makes one of
   * its own), so the others take over at once. Without `delete` on Leases (an older chart's RBAC) it
   * expires the Lease instead. A replica that lost its Lease leaves its buckets alone: they may have
   * new holders. Failures only cost the others a Lease duration.
   */
  async leave(lost: boolean): Promise<void> {
    if (lost) return;
    await Promise.all(this.releasing.map((bucket) => this.releaseBucket(bucket)));
    const { writer, namespace, group, identity, logger } = this.options;
    const name = memberLeaseName(group, identity);
    await writer.delete({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace, name })
      .catch(() => this.writeLease(name, (spec) => ({ ...spec, holderIdentity: '', leaseDurationSeconds: 1 })))
      .catch((err: unknown) => logger.warn({ err }, 'sharding: could not let the member Lease go; the others take over when it expires'));
  }

  private async rebalance(signal: AbortSignal): Promise<void> {
    const { clock, group, identity, buckets, logger, writer } = this.options;
    const leases = await this.options.listLeases(signal);
    this.sightings = await removeStaleMembers(writer, leases, {
      group, ownLease: memberLeaseName(group, identity), now: clock.now(), leaseDurationMs: this.lease, sightings: this.sightings, logger, signal,
    });
    const members = liveMembers(leases, group, identity, clock.now());
    const holders = bucketHolders(leases, group, members);
    await this.dropLost(holders);
    await this.resumeOwn(holders);
    const moves = planShardMoves({ identity, members: [...members], buckets, holders, held: this.held });
    if (moves.release.length > 0) {
      await this.restart(new Set([...this.held].filter((bucket) => !moves.release.includes(bucket))));
      await Promise.all(moves.release.map((bucket) => this.releaseBucket(bucket)));
      logger.info({ buckets: moves.release, members: members.size }, 'sharding: gave buckets back');
      this.options.observe?.handover('released', moves.release.length);
    }
    const taken: number[] = [];
    for (const bucket of moves.acquire) if (await this.takeBucket(bucket)) taken.push(bucket);
    if (taken.length > 0) {
      await this.restart(new Set([...this.held, ...taken]));
      logger.info({ buckets: taken, members: members.size }, 'sharding: took buckets');
      this.options.observe?.handover('acquired', taken.length);
    }
  }

  /** Stops at once the buckets this replica runs whose Leases name someone else (it was thought gone). */
  private async dropLost(holders: readonly BucketHolder[]): Promise<void> {
    const ours = new Set(holders.filter((h) => h.holder === this.options.identity).map((h) => h.bucket));
    const lost = [...this.held].filter((bucket) => !ours.has(bucket));
    if (lost.length === 0) return;
    this.options.logger.error({ buckets: lost }, 'sharding: buckets taken over by another replica; stopping their parents');
    await this.restart(new Set([...this.held].filter((bucket) => ours.has(bucket))));
  }

  /**
   * Runs the buckets whose Leases name this replica but which it does not run: taken in a round that
   * failed half-way, or not given back because the release failed. Left alone, nobody would ever run
   * them (this replica is alive, so their Leases never free themselves).
   */
  private async resumeOwn(holders: readonly BucketHolder[]): Promise<void> {
    const idle = holders.filter((h) => h.holder === this.options.identity && !this.held.has(h.bucket)).map((h) => h.bucket);
    if (idle.length > 0) await this.restart(new Set([...this.held, ...idle]));
  }

  /** Stops the controllers (draining them) and starts them again for `next`, unless it is empty. */
  private async restart(next: ReadonlySet<number>): Promise<void> {
    if (this.running) {
      this.running.stop.abort();
      await this.running.done;
      this.running = undefined;
    }
    this.held = next;
    this.options.observe?.held(next.size);
    if (next.size === 0) return;
    const stop = new AbortController();
    const done = this.run(next, stop.signal).catch((err: unknown) => this.options.logger.error({ err }, 'sharding: the controllers stopped unexpectedly'));
    this.running = { stop, done };
  }

  private renewMember(signal: AbortSignal): Promise<void> {
    const { identity } = this.options;
    return this.writeLease(memberLeaseName(this.options.group, identity), (spec, now) => ({
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.lease / 1000),
      acquireTime: spec.holderIdentity === identity && spec.acquireTime ? spec.acquireTime : microTime(now),
      renewTime: microTime(now),
    }), signal);
  }

  /**
   * Takes `bucket` when its Lease is free at the write: no holder, or a holder whose member Lease is
   * expired when read now (not in the list this round started from, which may predate a replica that
   * has just joined and taken it). False when another replica got it first.
   */
  private async takeBucket(bucket: number): Promise<boolean> {
    const { identity, group, clock } = this.options;
    const name = bucketLeaseName(group, bucket);
    const current = await this.readLease(name);
    if (await this.isOtherLiveMember(current?.spec?.holderIdentity)) return false;
    const now = clock.now();
    try {
      // The write carries the resourceVersion read above: a change since makes it fail.
      await this.putLease(name, current, {
        holderIdentity: identity, leaseDurationSeconds: Math.ceil(this.lease / 1000), acquireTime: microTime(now), renewTime: microTime(now),
        leaseTransitions: (current?.spec?.leaseTransitions ?? 0) + 1,
      });
      return true;
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err)) return false;
      throw err;
    }
  }

  /** True when `holder` is another replica whose member Lease is alive when read now. */
  private async isOtherLiveMember(holder: string | undefined): Promise<boolean> {
    const { identity, group, clock } = this.options;
    if (!holder || holder === identity) return false;
    return liveHolder(await this.readLease(memberLeaseName(group, holder)), clock.now()) === holder;
  }

  private async releaseBucket(bucket: number): Promise<void> {
    const { identity, logger } = this.options;
    await this.writeLease(bucketLeaseName(this.options.group, bucket), (spec, now) => {
      if (spec.holderIdentity !== identity) throw new BucketTakenError();
      return { ...spec, holderIdentity: '', renewTime: microTime(now) };
    }).catch((err: unknown) => {
      if (!(err instanceof BucketTakenError) && !isNotFound(err)) logger.warn({ err, bucket }, 'sharding: could not give a bucket back; it is run again and given back in a later round');
    });
  }

  /**
   * Creates or replaces the Lease `name` with the spec `next` makes of its current one. The replace
   * carries the `resourceVersion` read, so a concurrent writer makes it fail with a conflict.
   */
  private async writeLease(name: string, next: (spec: LeaseSpec, now: number) => LeaseSpec, signal?: AbortSignal): Promise<void> {
    const current = await this.readLease(name, signal);
    await this.putLease(name, current, next(current?.spec ?? {}, this.options.clock.now()), signal);
  }

  private async readLease(name: string, signal?: AbortSignal): Promise<Lease | undefined> {
    const { writer, namespace } = this.options;
    return writer.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace, name }, { signal });
  }

  /** Replaces `current` (guarded by its resourceVersion) with `spec`, or creates the Lease when there was none. */
  private async putLease(name: string, current: Lease | undefined, spec: LeaseSpec, signal?: AbortSignal): Promise<void> {
    const { writer, namespace, group } = this.options;
    if (current) await writer.replace({ ...current, spec }, { signal });
    else await writer.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace, labels: { [SHARD_GROUP_LABEL]: group } }, spec }, { signal });
  }
}

class BucketTakenError extends Error {
  override readonly name = 'BucketTakenError';
}
