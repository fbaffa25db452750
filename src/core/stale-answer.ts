/**
 * Whether the writes of a sync in progress have gone stale: the hook answered about one version of
 * the parent (or decorator target), and by now the controller is stopping or the object has moved on.
 * A sync with thousands of writes asks this between them and stops when it says so, so a deleted
 * controller or parent, or a newer spec, never waits for the end of an answer nobody wants any more.
 */
import type { KubeObject } from '../api/index.ts';

/** What the staleness of a sync is judged on. */
export interface StaleAnswerInput {
  /** The object as the sync saw it when it asked the hook (after its own finalizer write, if any). */
  synced: KubeObject;
  /** The object as the cache holds it now; `undefined` once it is gone. */
  current: KubeObject | undefined;
  /** The controller is stopping: deleted, its spec changed, a shutdown, a shard handed over. */
  stopping: boolean;
}

/**
 * Why the sync's remaining writes must not be made, or `undefined` while its answer still holds.
 * Judged on the controller, the object's identity (a namesake is another object), its deletion and
 * its `generation` (its spec). Not on `resourceVersion`: a status written by the object's own
 * controller or by loom, or a lagging cache, would stop every long sync for nothing. A change that
 * moves no generation (labels, a ConfigMap's data) is left to the next sync, which the change queues.
 * The cache may still hold an older version than the sync saw (its own finalizer write), so only a
 * generation ahead of the synced one counts.
 */
export function whyAnswerStale(input: StaleAnswerInput): string | undefined {
  const { synced, current } = input;
  if (input.stopping) return 'the controller is stopping';
  if (!current) return 'the object was deleted';
  if (current.metadata.uid !== synced.metadata.uid) return 'the object was deleted and created again';
  if (current.metadata.deletionTimestamp && !synced.metadata.deletionTimestamp) return 'the object is being deleted';
  const before = synced.metadata.generation ?? 0;
  const now = current.metadata.generation ?? 0;
  if (now > before) return `the object's spec changed (generation ${before} → ${now})`;
  return undefined;
}
