/**
 * At most `max` tasks at a time, the rest waiting in arrival order: the per-controller cap on
 * concurrent hook calls (`--hook-max-concurrency`). A wait can be given up (the sync was stopped),
 * and then takes no slot.
 */

/** Runs tasks under the limit. */
export interface ConcurrencyLimit {
  /**
   * Runs `task` once a slot is free and frees it when the task settles. Rejects with `signal`'s reason,
   * without running the task, if it aborts while waiting.
   */
  run<T>(task: () => Promise<T>, signal: AbortSignal): Promise<T>;
  /** Tasks running now. */
  running(): number;
}

/** A limit of `max` tasks at a time; `max` 0 (or below) means no limit. */
export function createConcurrencyLimit(max: number): ConcurrencyLimit {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  const acquire = (signal: AbortSignal): Promise<void> => {
    signal.throwIfAborted();
    if (max <= 0 || running < max) {
      running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      // The slot is handed over as it is (running stays the same), so no newcomer can take it first.
      const grant = (): void => {
        signal.removeEventListener('abort', leave);
        resolve();
      };
      const leave = (): void => {
        waiting.splice(waiting.indexOf(grant), 1);
        reject(signal.reason as Error);
      };
      waiting.push(grant);
      signal.addEventListener('abort', leave, { once: true });
    });
  };
  return {
    async run(task, signal) {
      await acquire(signal);
      try {
        return await task();
      } finally {
        release();
      }
    },
    running: () => running,
  };
}
