/**
 * The worker loop: N workers take keys from a queue, reconcile them, and map how each reconcile ended
 * to a queue action in one switch ({@link applyOutcome}). Everything a caller wants to emit — metrics,
 * events, logs — it gets from `onOutcome`; the loop itself knows keys, not Kubernetes.
 */
import type { Clock } from './clock.ts';
import { engineErrorOf, RetryAfterError, TerminalError } from './errors.ts';
import type { Reconciler } from './reconciler.ts';
import type { WorkQueue } from './work-queue.ts';

/** The part of a {@link WorkQueue} the workers use. */
export type WorkerQueue<K = string> = Pick<WorkQueue<K>, 'get' | 'done' | 'forget' | 'addAfter' | 'addRateLimited' | 'retryNow' | 'shutDown'>;

/**
 * At most this often, a success after failures retries every key in backoff at once
 * ({@link WorkQueue.retryNow}): when a broken hook answers again, the parents it failed recover in
 * seconds, not after backoffs grown to many minutes; while some keys keep failing beside succeeding
 * ones, they are retried no more often than this.
 */
export const RECOVERY_RETRY_INTERVAL_MS = 30_000;

/**
 * How a reconcile ended: `success` (resolved; maybe with a requeue), `requeue` (`RetryAfterError`, not
 * a failure), `terminal` (`TerminalError`, not retried), `error` (anything else, retried with backoff).
 */
export type OutcomeResult = 'success' | 'error' | 'requeue' | 'terminal';

/** One finished reconcile, as reported to `onOutcome`. */
export interface ReconcileOutcome<K = string> {
  key: K;
  result: OutcomeResult;
  /** Wall time of the reconcile on the injected clock. */
  durationMs: number;
  /** What the reconcile threw, as thrown (with its context and cause); absent on success. */
  error?: unknown;
  /** When the key was queued again by a delay: `requeueAfterMs` on success, the retry delay on `requeue`. */
  requeueAfterMs?: number;
}

/** What the workers run on. */
export interface RunWorkersOptions<K = string> {
  queue: WorkerQueue<K>;
  reconciler: Reconciler<K>;
  /** How many keys are reconciled at once (Metacontroller's `--workers`, per controller). */
  workers: number;
  /**
   * Stop: no new key is taken, the queue is shut down, reconciles in flight are told to stop (it is
   * their signal too), and `runWorkers` resolves once every one of them has finished.
   */
  signal: AbortSignal;
  /** Times each reconcile. */
  clock: Clock;
  /** Told about every finished reconcile. Must not throw; if it does, the error is dropped. */
  onOutcome?: ((outcome: ReconcileOutcome<K>) => void) | undefined;
}

/** How a reconcile ended, before it is timed and reported. */
type Ending =
  | { result: 'success'; requeueAfterMs?: number | undefined }
  | { result: 'requeue'; error: unknown; requeueAfterMs: number }
  | { result: 'terminal'; error: unknown }
  | { result: 'error'; error: unknown };

/**
 * Runs `workers` reconcile loops over `queue` until `signal` aborts or the queue is shut down, and
 * resolves once all of them have stopped. A reconcile that throws (synchronously or not) never stops a
 * worker; its key is handled by the outcome switch like any other.
 */
export async function runWorkers<K>(options: RunWorkersOptions<K>): Promise<void> {
  const { workers, signal, queue } = options;
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a positive integer, got ${workers}`);
  // Shutting the queue down releases idle workers at once and cancels delayed adds, so nothing keeps
  // the process alive once the reconciles in flight are done.
  const stop = (): void => queue.shutDown();
  signal.addEventListener('abort', stop, { once: true });
  if (signal.aborted) stop();
  try {
    const recovery = recoveryOf(options);
    await Promise.all(Array.from({ length: workers }, () => work(options, recovery)));
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/** One worker: get → reconcile → act → done, until there are no more keys. */
async function work<K>(options: RunWorkersOptions<K>, recovery: Recovery): Promise<void> {
  for (;;) {
    const key = await options.queue.get(options.signal);
    if (key === undefined) return;
    const started = options.clock.now();
    const ending = await reconcileOnce(options.reconciler, key, options.signal);
    try {
      applyOutcome(options.queue, key, ending);
    } finally {
      options.queue.done(key);
    }
    recovery.after(ending.result);
    report(options, toOutcome(key, ending, options.clock.now() - started));
  }
}

async function reconcileOnce<K>(reconciler: Reconciler<K>, key: K, signal: AbortSignal): Promise<Ending> {
  try {
    // Inside the try, so a reconcile that throws before returning a promise is caught as well.
    const result = await reconciler.reconcile(key, signal);
    return { result: 'success', requeueAfterMs: result?.requeueAfterMs };
  } catch (error) {
    const known = engineErrorOf(error);
    if (known instanceof RetryAfterError) return { result: 'requeue', error, requeueAfterMs: known.retryAfterMs };
    if (known instanceof TerminalError) return { result: 'terminal', error };
    return { result: 'error', error };
  }
}

/** The workers' shared memory of failures, for {@link RECOVERY_RETRY_INTERVAL_MS}. */
interface Recovery {
  after(result: OutcomeResult): void;
}

function recoveryOf<K>(options: RunWorkersOptions<K>): Recovery {
  let failedSince = false;
  let lastRetryAt = -Infinity;
  return {
    after(result) {
      if (result === 'error') failedSince = true;
      if (result !== 'success' || !failedSince) return;
      const now = options.clock.now();
      if (now - lastRetryAt < RECOVERY_RETRY_INTERVAL_MS) return;
      failedSince = false;
      lastRetryAt = now;
      options.queue.retryNow();
    },
  };
}

function isPositiveDelay(ms: number | undefined): ms is number {
  return ms !== undefined && ms > 0;
}

/**
 * THE mapping from how a reconcile ended to what happens to its key. Called while the key is still
 * held, so an immediate re-add marks it dirty and `done` queues it again.
 */
function applyOutcome<K>(queue: WorkerQueue<K>, key: K, ending: Ending): void {
  switch (ending.result) {
    case 'success':
      queue.forget(key);
      if (isPositiveDelay(ending.requeueAfterMs)) queue.addAfter(key, ending.requeueAfterMs);
      return;
    case 'requeue':
      // The server told us when; this is not a failure, so the backoff neither grows nor resets.
      queue.addAfter(key, ending.requeueAfterMs);
      return;
    case 'terminal':
      queue.forget(key);
      return;
    case 'error':
      queue.addRateLimited(key);
      return;
  }
}

function toOutcome<K>(key: K, ending: Ending, durationMs: number): ReconcileOutcome<K> {
  const outcome: ReconcileOutcome<K> = { key, result: ending.result, durationMs };
  if (ending.result !== 'success') outcome.error = ending.error;
  if (ending.result === 'requeue') outcome.requeueAfterMs = ending.requeueAfterMs;
  else if (ending.result === 'success' && isPositiveDelay(ending.requeueAfterMs)) outcome.requeueAfterMs = ending.requeueAfterMs;
  return outcome;
}

function report<K>(options: RunWorkersOptions<K>, outcome: ReconcileOutcome<K>): void {
  try {
    options.onOutcome?.(outcome);
  } catch {
    // A broken observer must not stop reconciles; it is the caller's code and the caller's to log.
  }
}
