/**
 * A clock for tests whose time moves only when the test says so. Unlike the devcluster fake clock
 * (where `sleep` returns at once), sleepers here wait until {@link ManualClock.advance} passes their
 * deadline, so tests can check what happens before, at and after a delay.
 */
import type { Clock } from './clock.ts';

/** A {@link Clock} driven by hand. */
export interface ManualClock extends Clock {
  /**
   * Moves time forward by `ms`, waking each sleeper whose deadline falls in the window in deadline
   * order (equal deadlines in the order they slept), with time set to that deadline and everything it
   * triggers settled before the next one wakes.
   */
  advance(ms: number): Promise<void>;
  /** Sleeps not yet woken or aborted: lets a test prove no timer outlives its owner. */
  pendingTimers(): number;
}

interface Timer {
  at: number;
  seq: number;
  wake: () => void;
}

/** Lets every promise continuation queued so far (and those they queue) run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Starts at `start` ms. */
export function manualClock(start = 1_000_000): ManualClock {
  let now = start;
  let seq = 0;
  const timers = new Set<Timer>();
  const next = (until: number): Timer | undefined =>
    [...timers].filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];

  return {
    now: () => now,
    sleep: (ms, signal) => {
      if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
      if (!(ms > 0)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          timers.delete(timer);
          reject(signal?.reason as Error);
        };
        const timer: Timer = { at: now + ms, seq: seq++, wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        } };
        timers.add(timer);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    advance: async (ms) => {
      const until = now + ms;
      await settle();
      for (let timer = next(until); timer !== undefined; timer = next(until)) {
        timers.delete(timer);
        now = timer.at;
        timer.wake();
        await settle();
      }
      now = until;
      await settle();
    },
    pendingTimers: () => timers.size,
  };
}
