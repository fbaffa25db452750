/**
 * A clock for tests: `sleep` advances time at once instead of waiting.
 */
import type { Clock } from '../engine/clock.ts';

/** A {@link Clock} whose time moves only when something sleeps. */
export interface FakeClock extends Clock {
  /** Total milliseconds slept so far. */
  readonly elapsed: () => number;
}

/** Starts at `start` ms. */
export function fakeClock(start = 1_000_000): FakeClock {
  let now = start;
  return {
    now: () => now,
    sleep: (ms, signal) => {
      signal?.throwIfAborted();
      now += ms;
      return Promise.resolve();
    },
    elapsed: () => now - start,
  };
}
