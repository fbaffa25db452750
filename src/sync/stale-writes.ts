/**
 * Stopping a sync whose answer has gone stale while its children (or attachments) are written: a
 * deleted or stopping controller, a deleted parent, a newer spec (`core/stale-answer.ts`). With
 * thousands of writes a sync outlives its answer by minutes; checked before each write, it ends within
 * the writes already in flight, and the parent is synced again from what is current.
 */
import type { KubeObject } from '../api/index.ts';
import { PlanStoppedError } from '../apply/index.ts';
import { whyAnswerStale } from '../core/index.ts';
import { RetryAfterError } from '../engine/index.ts';
import { writeFailures } from './write-failures.ts';

/**
 * The `stopIf` of the writes planned from an answer about `synced`: asks the cache for the object as it
 * is now (`current`) and the controller's signal, every time.
 */
export function stopWhenStale(synced: KubeObject, current: () => KubeObject | undefined, signal: AbortSignal): () => string | undefined {
  return () => whyAnswerStale({ synced, current: current(), stopping: signal.aborted });
}

/** A sync that stopped because its answer went stale: a requeue (see {@link throwIfStopped}). */
export class StaleSyncError extends RetryAfterError {}

/**
 * Throws when the writes were stopped: a requeue, not a failure (no `SyncError`, no backoff), before
 * any status write, as a status from a stale answer over a half-applied plan would claim what is not
 * so (`observedGeneration` moved, the hook's status for children that were never made). Nothing is
 * deleted for the stop: the next sync asks the hook again and plans from there. Write failures met
 * before the stop ride along as the cause, so they are not lost from the log.
 */
export function throwIfStopped(failures: readonly Error[], what: string): void {
  const stopped = failures.filter((f) => f instanceof PlanStoppedError);
  if (stopped.length === 0) return;
  const failed = failures.filter((f) => !(f instanceof PlanStoppedError));
  const first = stopped[0] as PlanStoppedError;
  throw new StaleSyncError(`stopped the sync with ${stopped.length} ${what} write(s) not started: ${first.reason}; the current state is synced next`, {
    retryAfterMs: 0, cause: failed.length > 0 ? writeFailures(failed, what) : first,
  });
}
