/**
 * The `SyncsFailing` condition loom keeps on a controller object (docs/controller-status.md): `True`
 * while some parents' last sync failed, with how many and the latest error. `Ready` says only that the
 * controller runs; this says whether its syncs succeed.
 *
 * Replicas that shard the parents each know only their own buckets' parents, so the count is kept in
 * shares: `status.syncFailures` holds one entry per share (`all` without sharding, else one per bucket
 * with failures), each replica replaces the entries of the shares it holds, and the condition sums
 * every entry. A bucket has one holder at a time, so no two replicas write the same entry.
 */
import { boundedText } from '../api/bounded-text.ts';

/** `type` of the condition. */
export const SYNCS_FAILING = 'SyncsFailing';

/** The share of a replica that runs every parent (no sharding). */
export const ALL_PARENTS = 'all';

/** One share's failures, as kept in `status.syncFailures[share]`. */
export interface ShareFailures {
  /** How many parents of the share failed their last sync. */
  parents: number;
  /** The latest failure: `<parent>: <error>`, bounded. */
  lastError: string;
  /** When it happened (RFC 3339, seconds). */
  lastFailureTime: string;
}

/** `status.syncFailures`: failures by share; shares without failures have no entry. */
export type FailureShares = Record<string, ShareFailures>;

/** The condition as written into `status.conditions`. */
export interface SyncsFailingCondition {
  type: typeof SYNCS_FAILING;
  status: 'True' | 'False';
  reason: 'SyncErrors' | 'NoSyncErrors';
  message: string;
  lastTransitionTime: string;
}

/** A failing parent: its share, its latest error and when it came. */
interface Failure {
  share: string;
  message: string;
  at: number;
}

/** RFC 3339 with whole seconds, as Kubernetes writes condition times. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The parents of one run of a controller whose last sync failed. Each method says whether the set of
 * failing parents changed: that, not every sync, is when the condition is written.
 */
export class FailingParents {
  private readonly failing = new Map<string, Failure>();

  /** `parent` (its key) of `share` failed with `message` at `at` (ms). */
  failed(parent: string, share: string, message: string, at: number): boolean {
    const known = this.failing.has(parent);
    this.failing.set(parent, { share, message, at });
    return !known;
  }

  /** `parent` synced, or is gone: it fails no more. */
  recovered(parent: string): boolean {
    return this.failing.delete(parent);
  }

  /** How many parents fail. */
  get size(): number {
    return this.failing.size;
  }

  /** The entries of the shares `held` (the others' are not this run's to say), only those with failures. */
  sharesOf(held: readonly string[]): FailureShares {
    const shares: FailureShares = {};
    const latest = new Map<string, { parent: string; failure: Failure }>();
    for (const [parent, failure] of this.failing) {
      if (!held.includes(failure.share)) continue;
      const entry = shares[failure.share] ?? { parents: 0, lastError: '', lastFailureTime: '' };
      shares[failure.share] = { ...entry, parents: entry.parents + 1 };
      const before = latest.get(failure.share);
      if (!before || before.failure.at <= failure.at) latest.set(failure.share, { parent, failure });
    }
    for (const [share, { parent, failure }] of latest) {
      shares[share] = { parents: shares[share]!.parents, lastError: boundedText(`${parent}: ${failure.message}`), lastFailureTime: rfc3339(failure.at) };
    }
    return shares;
  }
}

/**
 * `status.syncFailures` after a run holding `held` writes `mine`: its shares are replaced, other
 * replicas' bucket entries kept. Without sharding (`held` is {@link ALL_PARENTS} alone) the run knows
 * every parent and replaces everything, so entries left by an earlier sharded deployment go too;
 * with sharding an `all` entry left by an unsharded one goes.
 */
export function mergeShares(onObject: FailureShares | undefined, mine: FailureShares, held: readonly string[]): FailureShares {
  const merged: FailureShares = {};
  const sharded = !held.includes(ALL_PARENTS);
  for (const [share, entry] of Object.entries(onObject ?? {})) {
    if (sharded && share !== ALL_PARENTS && !held.includes(share)) merged[share] = entry;
  }
  Object.assign(merged, mine);
  // Sorted, as the API server returns a map: comparing with the stored value needs the same order.
  return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
}

/** How many parents fail over every share. */
export function failingParentsOf(shares: FailureShares): number {
  return Object.values(shares).reduce((sum, entry) => sum + entry.parents, 0);
}

/**
 * The condition for `shares`: `True` (`SyncErrors`) with the count and the latest error of all
 * shares, else `False` (`NoSyncErrors`). The transition time moves only when the status flips
 * (`previous` is the condition on the object), as Kubernetes' conditions do.
 */
export function syncsFailingCondition(shares: FailureShares, previous: { status?: string; lastTransitionTime?: string } | undefined, now: number): SyncsFailingCondition {
  const count = failingParentsOf(shares);
  const status = count > 0 ? 'True' : 'False';
  const lastTransitionTime = previous?.status === status && previous.lastTransitionTime ? previous.lastTransitionTime : rfc3339(now);
  if (count === 0) return { type: SYNCS_FAILING, status, reason: 'NoSyncErrors', message: "no parent's last sync failed", lastTransitionTime };
  const latest = Object.values(shares).reduce((a, b) => (b.lastFailureTime > a.lastFailureTime ? b : a));
  const counted = count === 1 ? "1 parent's last sync failed" : `${count} parents' last sync failed`;
  return { type: SYNCS_FAILING, status, reason: 'SyncErrors', message: boundedText(`${counted}; latest: ${latest.lastError}`), lastTransitionTime };
}
