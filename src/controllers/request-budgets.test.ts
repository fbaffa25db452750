import { describe, expect, it } from 'vitest';
import { manualClock, type ManualClock } from '../engine/manual-clock.test-support.ts';
import { MAX_EVENT_WAIT_MS, MAX_QUEUED_EVENTS, requestBudgets } from './request-budgets.ts';

/** How long (ms of the manual clock) `wait` takes, advancing time 100 ms at a time for at most `limitMs`. */
async function timeOf(clock: ManualClock, wait: Promise<unknown>, limitMs: number): Promise<number> {
  const start = clock.now();
  let end: number | undefined;
  void wait.then(() => (end = clock.now()));
  await clock.advance(0);
  for (let waited = 0; end === undefined && waited < limitMs; waited += 100) await clock.advance(100);
  return end === undefined ? Infinity : end - start;
}

describe('requestBudgets', () => {
  it('keeps an event storm from delaying any API request', async () => {
    const clock = manualClock();
    const budgets = requestBudgets({ clock, qps: 5, burst: 10 });
    const storm = Array.from({ length: 5_000 }, (_, i) => budgets.events.enter(`v1/Kind${i % 5}`)?.turn());
    await clock.advance(30_000);
    // The cache's list goes at once: the events took none of the API client's burst.
    expect(await timeOf(clock, budgets.api(undefined, undefined), 0)).toBe(0);
    await clock.advance(MAX_EVENT_WAIT_MS);
    const outcomes = await Promise.all(storm.map((turn) => turn ?? Promise.resolve(undefined)));
    // Each kind held at most its places; the others were refused at once, and the rest dropped in time.
    expect(outcomes.filter((o) => o === undefined)).toHaveLength(5_000 - 5 * MAX_QUEUED_EVENTS);
    expect(outcomes.filter((o) => o === true).length).toBeLessThanOrEqual(10 + 5 * (30 + MAX_EVENT_WAIT_MS / 1_000));
    expect(outcomes).toContain(false);
  });

  it('keeps one controller\'s storm of writes from starving the caches or another controller', async () => {
    const clock = manualClock();
    const budgets = requestBudgets({ clock, qps: 5, burst: 10 });
    const storm = Array.from({ length: 2_000 }, () => budgets.api('CompositeController/storm', undefined));
    await clock.advance(10_000);
    // At 5 a second, one slot is 200 ms: each waits for the slot due next, then has its own.
    expect(await timeOf(clock, budgets.api(undefined, undefined), 1_000)).toBeLessThanOrEqual(400);
    expect(await timeOf(clock, budgets.api('CompositeController/healthy', undefined), 1_000)).toBeLessThanOrEqual(400);
    await clock.advance(500_000);
    await Promise.all(storm);
  });
});
