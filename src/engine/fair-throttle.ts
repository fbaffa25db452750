/**
 * Shares one client rate limit (`--client-go-qps/burst`) fairly between tenants — loom's controllers,
 * and the host itself (watches, discovery). A plain token bucket serves requests in arrival order, so a
 * controller with thousands of writes to make keeps the others waiting behind its queue; here each
 * tenant with a request waiting gets the next slot in turn, so with k tenants busy each gets at least
 * 1/k of the rate, however much any one of them asks for.
 */
import type { Clock } from './clock.ts';

/** Hands out the slots of a limiter. */
export interface FairThrottle {
  /** Resolves when `tenant` may send one request. */
  wait(tenant: string): Promise<void>;
}

/** What the throttle shares: a limiter whose `when()` reserves the next slot and says how long until it. */
export interface FairThrottleOptions {
  clock: Pick<Clock, 'sleep'>;
  limiter: { when(): number };
}

/** A throttle over `limiter`; the tenant whose turn it is gets the next slot. */
export function createFairThrottle(options: FairThrottleOptions): FairThrottle {
  /** Waiting requests by tenant; the map's order is the order of turns. */
  const waiting = new Map<string, (() => void)[]>();
  let pumping = false;

  // One loop hands out slots one at a time, so the limiter holds at most one reservation.
  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    try {
      for (let next = waiting.entries().next(); !next.done; next = waiting.entries().next()) {
        const [tenant, queue] = next.value;
        waiting.delete(tenant);
        const grant = queue.shift()!;
        if (queue.length > 0) waiting.set(tenant, queue); // to the back of the line
        const delay = options.limiter.when();
        if (delay > 0) await options.clock.sleep(delay);
        grant();
      }
    } finally {
      pumping = false;
    }
  };

  return {
    wait(tenant) {
      return new Promise<void>((resolve) => {
        const queue = waiting.get(tenant);
        if (queue) queue.push(resolve);
        else waiting.set(tenant, [resolve]);
        void pump();
      });
    },
  };
}
