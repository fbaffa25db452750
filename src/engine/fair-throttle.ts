/**
 * Shares one client rate limit fairly between tenants — loom's controllers, and the host itself
 * (caches, discovery, controller status). A plain token bucket serves requests in arrival order, so a
 * controller with thousands of writes to make keeps the others waiting behind its queue; here each
 * tenant with a request waiting gets the next slot in turn, so with k tenants busy each gets at least
 * 1/k of the rate, however much any one of them asks for, and a tenant that starts asking waits for at
 * most one slot per tenant ahead of it.
 */
import type { Clock } from './clock.ts';

/** Hands out the slots of a limiter. */
export interface FairThrottle {
  /**
   * Resolves when `tenant` may send one request. If `signal` aborts first, the wait leaves the line
   * and rejects with the signal's reason, taking no slot: a request that gave up while queued (its
   * timeout, a shutdown) must not spend a slot someone else is waiting for.
   */
  wait(tenant: string, signal?: AbortSignal): Promise<void>;
}

/** What the throttle shares: a limiter whose `when()` reserves the next slot and says how long until it. */
export interface FairThrottleOptions {
  clock: Pick<Clock, 'sleep'>;
  limiter: { when(): number };
}

interface Waiter {
  grant(): void;
}

/** A throttle over `limiter`; the tenant whose turn it is when a slot comes due gets it. */
export function createFairThrottle(options: FairThrottleOptions): FairThrottle {
  /** Waiting requests by tenant; the map's order is the order of turns. */
  const waiting = new Map<string, Waiter[]>();
  let pumping = false;

  /** Grants the first request of the tenant whose turn it is, and sends that tenant to the back of the line. */
  const grantNext = (): void => {
    const next = waiting.entries().next();
    if (next.done) return; // every wait gave up while the slot came due
    const [tenant, queue] = next.value;
    waiting.delete(tenant);
    const waiter = queue.shift()!;
    if (queue.length > 0) waiting.set(tenant, queue);
    waiter.grant();
  };

  // One loop reserves slots one at a time, so the limiter holds at most one reservation; whose the
  // slot is is decided only when it comes due, so a tenant that asked meanwhile is served in its turn.
  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    try {
      while (waiting.size > 0) {
        const delay = options.limiter.when();
        if (delay > 0) await options.clock.sleep(delay);
        grantNext();
      }
    } finally {
      pumping = false;
    }
  };

  const leave = (tenant: string, waiter: Waiter): void => {
    const queue = waiting.get(tenant);
    const at = queue?.indexOf(waiter) ?? -1;
    if (at < 0) return;
    queue!.splice(at, 1);
    if (queue!.length === 0) waiting.delete(tenant);
  };

  return {
    wait(tenant, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      return new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          leave(tenant, waiter);
          reject(signal!.reason as Error);
        };
        const waiter: Waiter = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        const queue = waiting.get(tenant);
        if (queue) queue.push(waiter);
        else waiting.set(tenant, [waiter]);
        void pump();
      });
    },
  };
}
