/**
 * Counts the timers of one duration that code under test sets and has not cleared, through spies on
 * `setTimeout` and `clearTimeout`. A test that a finished request leaves no timer behind cannot count
 * the process's active timers instead: those include the test runner's and a local server's own, which
 * come and go on their own schedule, more so on a busy machine.
 */
import { vi } from 'vitest';

/** What {@link liveTimers} has seen so far. */
export interface LiveTimers {
  /** Timers of the duration set and neither cleared nor fired. */
  readonly live: () => number;
  /** Timers of the duration set in all. */
  readonly started: () => number;
}

/** Spies on the timer functions from now on (undo with `vi.restoreAllMocks()`), counting timers of `ms`. */
export function liveTimers(ms: number): LiveTimers {
  const live = new Set<unknown>();
  let started = 0;
  const set = globalThis.setTimeout;
  const clear = globalThis.clearTimeout;
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, delay?: number) => {
    const timer = set(() => {
      live.delete(timer);
      fn();
    }, delay);
    if (delay === ms) {
      live.add(timer);
      started++;
    }
    return timer;
  }));
  vi.spyOn(globalThis, 'clearTimeout').mockImplementation((timer) => {
    live.delete(timer);
    clear(timer);
  });
  return { live: () => live.size, started: () => started };
}
