/**
 * The one place that reads wall time or schedules timers. Everything else takes a {@link Clock}, so
 * tests can drive time and nothing hides a `Date.now()` or `setTimeout`.
 */
import { setImmediate, setTimeout as delay } from 'node:timers/promises';

/** Reads time and waits; injected into every part that needs either. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason if it is aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    await delay(ms, undefined, signal ? { signal } : undefined);
  },
};

/**
 * Resolves after the event loop has turned once (timers and I/O waiting meanwhile have run). Long
 * computations on the event loop await it between slices so they never hold it for long.
 */
export function nextTurn(): Promise<void> {
  return setImmediate();
}
