/**
 * Leader election with a `coordination.k8s.io/v1` Lease, as client-go does it (and so Metacontroller
 * with `--leader-election`): one replica holds the lease and runs the controllers; the others wait.
 * The holder renews every retry period; a holder that cannot renew for the renew deadline stops
 * leading, and a lease not renewed for its duration may be taken over. Timings are controller-runtime's
 * defaults: 15 s lease, 10 s renew deadline, 2 s retry period.
 */
import type { Logger } from 'pino';
import type { Clock } from '../engine/index.ts';
import { isAlreadyExists, isConflict, type ObjectWriter } from '../kube/index.ts';
import { liveHolder, microTime, type Lease, type LeaseSpec } from './lease.ts';
import { keepRenewing } from './lease-renewal.ts';

/** Where the lease lives and who we are. */
export interface LeaderElectionOptions {
  writer: ObjectWriter;
  clock: Clock;
  logger: Logger;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** True when `lease` is held by someone else whose last renewal is still within its duration. */
export function heldByOther(lease: Lease | undefined, identity: string, now: number): boolean {
  const holder = liveHolder(lease, now);
  return holder !== undefined && holder !== identity;
}

/** The lease spec after we take or renew it at `now`. */
export function claimedSpec(current: Lease | undefined, options: Pick<LeaderElectionOptions, 'identity' | 'leaseDurationMs'>, now: number): LeaseSpec {
  const previous = current?.spec ?? {};
  const ours = previous.holderIdentity === options.identity;
  return {
    holderIdentity: options.identity,
    leaseDurationSeconds: Math.ceil((options.leaseDurationMs ?? 15_000) / 1000),
    acquireTime: (ours ? previous.acquireTime : undefined) ?? microTime(now),
    renewTime: microTime(now),
    leaseTransitions: (previous.leaseTransitions ?? 0) + (current && !ours ? 1 : 0),
  };
}

function leaseRef(options: LeaderElectionOptions) {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: options.namespace, name: options.name };
}

/** One attempt to take or renew the lease; resolves whether we hold it afterwards. `signal` gives it up. */
async function tryAcquireOrRenew(options: LeaderElectionOptions, signal?: AbortSignal): Promise<boolean> {
  const ref = leaseRef(options);
  const now = options.clock.now();
  const current = (await options.writer.get(ref, { signal })) as Lease | undefined;
  if (heldByOther(current, options.identity, now)) return false;
  const spec = claimedSpec(current, options, now);
  try {
    if (current) await options.writer.replace({ ...current, spec }, { signal });
    else await options.writer.create({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace }, spec }, { signal });
    return true;
  } catch (err) {
    if (isConflict(err) || isAlreadyExists(err)) return false; // Another replica wrote first.
    throw err;
  }
}

/**
 * Waits until this replica leads (resolves `false` if `signal` aborts first), so the caller can start
 * the controllers.
 */
export async function acquireLeadership(options: LeaderElectionOptions, signal: AbortSignal): Promise<boolean> {
  const retry = options.retryPeriodMs ?? 2_000;
  let said = false;
  while (!signal.aborted) {
    const led = await tryAcquireOrRenew(options, signal).catch((err: unknown) => {
      if (!signal.aborted) options.logger.warn({ err }, 'could not read or write the leader lease');
      return false;
    });
    if (led) {
      options.logger.info({ lease: `${options.namespace}/${options.name}`, identity: options.identity }, 'became the leader');
      return true;
    }
    if (!said) options.logger.info({ lease: `${options.namespace}/${options.name}` }, 'waiting to become the leader');
    said = true;
    await options.clock.sleep(retry, signal).catch(() => undefined);
  }
  return false;
}

/**
 * Renews the lease until `signal` aborts (resolves `'stopped'`) or no renewal has succeeded for the
 * renew deadline (resolves `'lost'`: the caller must stop its controllers, as another replica may
 * lead soon). Each renewal is raced against the deadline (`lease-renewal.ts`), so a request that never
 * answers is abandoned then, not waited for. Does not release the lease: stop the controllers first,
 * then {@link releaseLeadership}.
 */
export async function holdLeadership(options: LeaderElectionOptions, signal: AbortSignal): Promise<'stopped' | 'lost'> {
  const end = await keepRenewing({
    clock: options.clock, retryPeriodMs: options.retryPeriodMs ?? 2_000, renewDeadlineMs: options.renewDeadlineMs ?? 10_000,
    renew: async (renewal) => {
      if (!(await tryAcquireOrRenew(options, renewal))) throw new Error(`the leader lease ${options.namespace}/${options.name} is held by another replica`);
    },
    onFailed: (err) => options.logger.warn({ err }, 'could not renew the leader lease'),
  }, signal);
  return end.outcome;
}

/** Gives the lease up (if still ours) so a standby takes over at once instead of after expiry. */
export async function releaseLeadership(options: LeaderElectionOptions): Promise<void> {
  try {
    const current = (await options.writer.get(leaseRef(options))) as Lease | undefined;
    if (current?.spec?.holderIdentity !== options.identity) return;
    await options.writer.replace({ ...current, spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(options.clock.now()) } });
  } catch (err) {
    options.logger.warn({ err }, 'could not release the leader lease; a standby takes over when it expires');
  }
}
