/**
 * Keeps a running controller's `SyncsFailing` condition (core/syncs-failing.ts) on its controller
 * object. Told how each sync ended, it writes only when the set of failing parents changes, never per
 * sync, and at most once per {@link WRITE_INTERVAL_MS}: a hook that goes down fails the parents one
 * after another, and their changes are coalesced into one write per interval, made from the state at
 * writing time. A write that would change nothing is not sent. A run that starts (a restart, a new
 * spec) knows no failures yet: it writes once every parent it found has had a sync (or after
 * {@link SETTLE_LIMIT_MS}), so an earlier run's count is corrected without a `False`-then-`True` flap.
 */
import { boundedJoin, type KubeObject } from '../api/index.ts';
import {
  ALL_PARENTS, bucketOf, FailingParents, failingParentsOf, jsonEqual, mergeShares, SYNCS_FAILING, syncsFailingCondition, type FailureShares,
} from '../core/index.ts';
import { errorChain } from '../engine/index.ts';
import { isConflict, isNotFound } from '../kube/index.ts';
import type { Host } from './host.ts';

/** The least time between two writes of one controller's condition. */
export const WRITE_INTERVAL_MS = 5_000;

/**
 * The longest a new run waits for every parent's first sync before it writes anyway: a parent whose
 * syncs keep being retried (caches filling) must not keep an earlier run's count up for good.
 */
export const SETTLE_LIMIT_MS = 60_000;

/** What a running controller's loop tells the report. */
export interface SyncFailureReport {
  /** The parents the run starts with (key names): once each has had a sync, the condition is written. */
  begin(parents: Iterable<string>): void;
  /** A sync of `parent` (its key name; `obj` when cached) failed with `error`. */
  failed(parent: string, obj: KubeObject | undefined, error: unknown): void;
  /** A sync of `parent` succeeded, or found it gone. */
  succeeded(parent: string): void;
}

/** What the report needs: the controller's host (its writer ends with the run) and the controller object as cached. */
export interface SyncFailureReportOptions {
  host: Host;
  /** The controller object, newest cached. */
  get(): KubeObject | undefined;
  /** The run's end: no write after it. */
  signal: AbortSignal;
}

interface ControllerStatus {
  conditions?: { type: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string }[];
  syncFailures?: FailureShares;
  failingParents?: number;
}

/** The report as its starter holds it. */
export interface StartedSyncFailureReport extends SyncFailureReport {
  /**
   * Lets the writes go: until then changes are only noted, so the start's own `Ready` write (made
   * from the object read before the start) does not meet a Conflict from this one.
   */
  open(): void;
}

/** Starts the report of one run of a controller; it writes once {@link StartedSyncFailureReport.open}ed. */
export function startSyncFailureReport(options: SyncFailureReportOptions): StartedSyncFailureReport {
  const { host, signal } = options;
  const failing = new FailingParents();
  let pending: Set<string> | undefined;
  let dirty = false;
  let opened = false;
  let writing: Promise<void> | undefined;
  const held = (): string[] => (host.shard ? [...host.shard.held].map(String) : [ALL_PARENTS]);
  const shareOf = (obj: KubeObject | undefined): string => {
    const uid = obj?.metadata.uid;
    return host.shard && uid ? String(bucketOf(uid, host.shard.buckets)) : ALL_PARENTS;
  };
  const loop = async (): Promise<void> => {
    while (dirty && !signal.aborted) {
      dirty = false;
      if (await writeWhenChanged(options, failing.sharesOf(held()), held())) dirty = true;
      await host.clock.sleep(WRITE_INTERVAL_MS, signal).catch(() => undefined);
    }
  };
  const poke = (): void => {
    dirty = true;
    if (opened) writing ??= loop().finally(() => (writing = undefined));
  };
  const synced = (parent: string, changed: boolean): void => {
    const settled = pending !== undefined && pending.delete(parent) && pending.size === 0;
    if (settled) pending = undefined;
    // Before the run has seen every parent, only a new failure is news; a recovery is the settling's to write.
    if (settled || (changed && pending === undefined) || (changed && failing.size > 0)) poke();
  };
  return {
    open() {
      opened = true;
      if (dirty) poke();
    },
    begin(parents) {
      const waiting = new Set(parents);
      pending = waiting;
      const settle = (): void => {
        if (pending !== waiting) return;
        pending = undefined;
        poke();
      };
      if (waiting.size === 0) settle();
      else host.clock.sleep(SETTLE_LIMIT_MS, signal).then(settle, () => undefined);
    },
    failed(parent, obj, error) {
      synced(parent, failing.failed(parent, shareOf(obj), boundedJoin(errorChain(error), ': '), host.clock.now()));
    },
    succeeded(parent) {
      synced(parent, failing.recovered(parent));
    },
  };
}

/** What the object's status should become for `mine`, or `undefined` when it says that already. */
function nextStatus(options: SyncFailureReportOptions, status: ControllerStatus, mine: FailureShares, held: readonly string[]): ControllerStatus | undefined {
  const conditions = status.conditions ?? [];
  const previous = conditions.find((c) => c.type === SYNCS_FAILING);
  const shares = mergeShares(status.syncFailures, mine, held);
  const condition = syncsFailingCondition(shares, previous, options.host.clock.now());
  const count = failingParentsOf(shares);
  const said = previous !== undefined && jsonEqual({ ...previous, lastTransitionTime: condition.lastTransitionTime }, condition);
  if (said && status.failingParents === count && jsonEqual(status.syncFailures ?? {}, shares)) return undefined;
  return { ...status, conditions: [...conditions.filter((c) => c.type !== SYNCS_FAILING), condition], syncFailures: shares, failingParents: count };
}

/** Writes the condition, the shares and the count when they differ from the object's; says whether to try again (a Conflict). */
async function writeWhenChanged(options: SyncFailureReportOptions, mine: FailureShares, held: readonly string[]): Promise<boolean> {
  const obj = options.get();
  const next = obj && nextStatus(options, obj.status ?? {}, mine, held);
  if (!obj || !next) return false;
  try {
    await options.host.writer.replaceStatus({ ...obj, status: next });
    return false;
  } catch (err) {
    if (isNotFound(err) || options.signal.aborted) return false; // The object or the run is gone.
    // Our cache was behind (another write, another replica's share): the next round reads the newer object.
    if (isConflict(err)) return true;
    options.host.logger.warn({ err, controller: obj.metadata.name }, 'could not write the SyncsFailing condition');
    return false;
  }
}
