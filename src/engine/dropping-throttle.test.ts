import { describe, expect, it } from 'vitest';
import { createDroppingThrottle } from './dropping-throttle.ts';
import { createFairThrottle } from './fair-throttle.ts';
import { manualClock } from './manual-clock.test-support.ts';
import { TokenBucket } from './rate-limiter.ts';

function setUp(options: { maxWaiting: number; maxWaitMs: number; signal?: AbortSignal }) {
  const clock = manualClock();
  let slots = 0;
  const bucket = new TokenBucket({ clock, qps: 1, burst: 1 });
  const throttle = createFairThrottle({ clock, limiter: { when: () => (slots++, bucket.when()) } });
  return { clock, slots: () => slots, budget: createDroppingThrottle({ clock, throttle, ...options }) };
}

describe('createDroppingThrottle', () => {
  it('refuses a place beyond maxWaiting of one tenant, and gives one again once a place is left', () => {
    const { budget } = setUp({ maxWaiting: 2, maxWaitMs: 60_000 });
    const first = budget.enter('storm')!;
    expect(budget.enter('storm')).toBeDefined();
    expect(budget.enter('storm')).toBeUndefined();
    // Another tenant has a line of its own.
    expect(budget.enter('quiet')).toBeDefined();
    first.leave();
    first.leave(); // leaving twice frees one place only
    expect(budget.enter('storm')).toBeDefined();
    expect(budget.enter('storm')).toBeUndefined();
  });

  it('drops a request that waited maxWaitMs, without taking a slot, and sends the rest in turn', async () => {
    const { clock, slots, budget } = setUp({ maxWaiting: 100, maxWaitMs: 3_500 });
    const turns = Array.from({ length: 10 }, () => budget.enter('storm')!.turn());
    await clock.advance(10_000);
    const outcomes = await Promise.all(turns);
    // One slot a second: the burst at once, then one at 1, 2 and 3 s; the others would have waited past
    // 3.5 s and were dropped.
    expect(outcomes).toEqual([true, true, true, true, false, false, false, false, false, false]);
    // Four slots sent, and the one already reserved for the next in line when the rest were dropped.
    expect(slots()).toBe(5);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('drops at once a request whose turn is asked for after its time ran out', async () => {
    const { clock, slots, budget } = setUp({ maxWaiting: 10, maxWaitMs: 1_000 });
    const place = budget.enter('late')!;
    await clock.advance(1_000);
    await expect(place.turn()).resolves.toBe(false);
    expect(slots()).toBe(0);
  });

  it('lets a tenant with one request pass a storm of another after one slot', async () => {
    const { clock, budget } = setUp({ maxWaiting: 1_000, maxWaitMs: 2_000_000 });
    const storm = Array.from({ length: 1_000 }, () => budget.enter('storm')!.turn());
    await clock.advance(5_000);
    let at = -1;
    const start = clock.now();
    const quiet = budget.enter('quiet')!.turn().then((ok) => (at = ok ? clock.now() - start : Infinity));
    for (let i = 0; i < 3 && at < 0; i++) await clock.advance(1_000);
    await quiet;
    expect(at).toBeLessThanOrEqual(2_000);
    await clock.advance(1_000_000);
    expect(await Promise.all(storm)).not.toContain(false);
  });

  it('drops every waiting request when its signal aborts, and leaves no timer behind', async () => {
    const stop = new AbortController();
    const { clock, slots, budget } = setUp({ maxWaiting: 10, maxWaitMs: 60_000, signal: stop.signal });
    const turns = Array.from({ length: 5 }, () => budget.enter('a')!.turn());
    await clock.advance(0);
    stop.abort();
    expect(await Promise.all(turns)).toEqual([true, false, false, false, false]);
    expect(slots()).toBe(2); // the burst, and the slot that was being waited for
    await clock.advance(1_000); // that slot comes due, for nobody
    expect(clock.pendingTimers()).toBe(0);
    await expect(budget.enter('a')!.turn()).resolves.toBe(false);
  });
});
