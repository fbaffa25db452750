/**
 * A rate limit for requests that are worth sending only soon — Events above all: an Event written
 * minutes late, after hundreds queued before it, tells nobody anything, while the queue holds memory
 * and, on a shared limit, the slots others need. So each tenant may have at most `maxWaiting`
 * requests in line (a place is refused beyond that), and a request still in line `maxWaitMs` after it
 * got its place is dropped without taking a slot. Slots are shared fairly between tenants (a
 * {@link FairThrottle}), so one tenant's storm does not drop another's few requests.
 */
import type { Clock } from './clock.ts';
import type { FairThrottle } from './fair-throttle.ts';

/** Places in line for a budget that drops what cannot be sent in time. */
export interface DroppingThrottle {
  /**
   * A place in `tenant`'s line, held from now until {@link Place.leave}, or `undefined` when the tenant
   * already holds `maxWaiting` places (the request should be dropped).
   */
  enter(tenant: string): Place | undefined;
}

/** One request's place in line. */
export interface Place {
  /**
   * Waits for the request's slot: `true` to send it now, `false` when it had waited `maxWaitMs` since
   * {@link DroppingThrottle.enter} (or the budget was stopped) and should be dropped; no slot is taken then.
   */
  turn(): Promise<boolean>;
  /** Frees the place, after the request or its drop; more calls do nothing. */
  leave(): void;
}

/** Settings of {@link createDroppingThrottle}. */
export interface DroppingThrottleOptions {
  clock: Clock;
  /** The slots, shared between tenants; its own, so the requests it passes take no one else's. */
  throttle: FairThrottle;
  /** Places one tenant may hold at once, waiting or in flight. */
  maxWaiting: number;
  /** Longest wait for a slot, counted from {@link DroppingThrottle.enter}. */
  maxWaitMs: number;
  /** When it aborts, every request still waiting is dropped, and later ones at once. */
  signal?: AbortSignal | undefined;
}

/** A budget whose tenants hold at most `maxWaiting` places each, each for at most `maxWaitMs` in line. */
export function createDroppingThrottle(options: DroppingThrottleOptions): DroppingThrottle {
  const held = new Map<string, number>();
  const release = (tenant: string): void => {
    const count = (held.get(tenant) ?? 1) - 1;
    if (count > 0) held.set(tenant, count);
    else held.delete(tenant);
  };
  return {
    enter(tenant) {
      const count = held.get(tenant) ?? 0;
      if (count >= options.maxWaiting) return undefined;
      held.set(tenant, count + 1);
      const deadline = options.clock.now() + options.maxWaitMs;
      let left = false;
      return {
        turn: () => turnBefore(options, tenant, deadline),
        leave() {
          if (left) return;
          left = true;
          release(tenant);
        },
      };
    },
  };
}

/** Waits for `tenant`'s slot until `deadline`; `false` if it did not come by then. */
async function turnBefore(options: DroppingThrottleOptions, tenant: string, deadline: number): Promise<boolean> {
  const { clock, signal } = options;
  const left = deadline - clock.now();
  if (left <= 0 || signal?.aborted) return false;
  const giveUp = new AbortController();
  const timer = new AbortController();
  const stop = (): void => giveUp.abort();
  signal?.addEventListener('abort', stop, { once: true });
  clock.sleep(left, timer.signal).then(stop, () => undefined);
  try {
    await options.throttle.wait(tenant, giveUp.signal);
    return true;
  } catch {
    // Only giving up aborts the wait: the deadline passed, or the budget was stopped.
    return false;
  } finally {
    timer.abort();
    signal?.removeEventListener('abort', stop);
  }
}
