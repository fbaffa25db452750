/**
 * A stop with a bound: once the stop is asked for (SIGTERM), the drain — syncs in flight ending, caches
 * and servers closing, leases let go — gets a grace period and no more. A drain that outlasts it (a
 * write the API server never answers, a hook that ignores its abort) must not keep the process past
 * what its supervisor allows: the caller then exits anyway, and the Leases it holds expire on their own.
 */
import type { Clock } from './clock.ts';

/** How {@link drainWithin} ended. */
export type DrainOutcome = 'drained' | 'timed-out';

/** The bound of a drain. */
export interface DrainBound {
  clock: Pick<Clock, 'sleep'>;
  /** How long the drain may take once `stop` has aborted. */
  graceMs: number;
}

/**
 * Resolves `drained` when `done` does, or `timed-out` when `bound.graceMs` pass after `stop` aborted
 * first; before the stop, `done` is waited for as long as it takes. Rejects as `done` does (a lost
 * leader lease). Leaves no timer behind either way.
 */
export async function drainWithin(done: Promise<void>, stop: AbortSignal, bound: DrainBound): Promise<DrainOutcome> {
  const finished = new AbortController();
  const expired = new Promise<DrainOutcome>((resolve) => {
    const startTimer = (): void => {
      // Aborted once the drain has ended: then the bound no longer matters.
      void bound.clock.sleep(bound.graceMs, finished.signal).then(() => resolve('timed-out'), () => undefined);
    };
    if (stop.aborted) startTimer();
    else stop.addEventListener('abort', startTimer, { once: true });
    finished.signal.addEventListener('abort', () => stop.removeEventListener('abort', startTimer), { once: true });
  });
  try {
    return await Promise.race([done.then(() => 'drained' as const), expired]);
  } finally {
    finished.abort();
  }
}
