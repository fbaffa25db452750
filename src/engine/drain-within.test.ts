import { describe, expect, it } from 'vitest';
import { drainWithin } from './drain-within.ts';
import { manualClock, settle } from './manual-clock.test-support.ts';

/** A drain that ends when the test says so. */
function pendingDrain() {
  let finish!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { done, finish, fail };
}

describe('drainWithin', () => {
  it('waits as long as it takes while no stop was asked for: the bound runs from the stop', async () => {
    const clock = manualClock();
    const stop = new AbortController();
    const drain = pendingDrain();
    const outcome = drainWithin(drain.done, stop.signal, { clock, graceMs: 20_000 });
    await clock.advance(3_600_000);
    expect(clock.pendingTimers()).toBe(0);
    drain.finish();
    expect(await outcome).toBe('drained');
  });

  it('is drained when everything stops within the grace period after the stop, leaving no timer behind', async () => {
    const clock = manualClock();
    const stop = new AbortController();
    const drain = pendingDrain();
    const outcome = drainWithin(drain.done, stop.signal, { clock, graceMs: 20_000 });
    stop.abort();
    await clock.advance(19_999);
    drain.finish();
    expect(await outcome).toBe('drained');
    await settle();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('gives up when the drain outlasts the grace period after the stop', async () => {
    const clock = manualClock();
    const stop = new AbortController();
    const drain = pendingDrain();
    let settled: string | undefined;
    const outcome = drainWithin(drain.done, stop.signal, { clock, graceMs: 20_000 }).then((o) => (settled = o));
    await clock.advance(10_000);
    stop.abort();
    await clock.advance(19_999);
    expect(settled).toBeUndefined();
    await clock.advance(1);
    expect(await outcome).toBe('timed-out');
  });

  it('counts from a stop asked for before it was called', async () => {
    const clock = manualClock();
    const stop = new AbortController();
    stop.abort();
    const outcome = drainWithin(pendingDrain().done, stop.signal, { clock, graceMs: 5_000 });
    await clock.advance(5_000);
    expect(await outcome).toBe('timed-out');
  });

  it('passes on a drain that fails (a lost leader lease), and cancels its timer', async () => {
    const clock = manualClock();
    const stop = new AbortController();
    const drain = pendingDrain();
    const outcome = drainWithin(drain.done, stop.signal, { clock, graceMs: 20_000 });
    stop.abort();
    drain.fail(new Error('lost the leader lease'));
    await expect(outcome).rejects.toThrow('lost the leader lease');
    await settle();
    expect(clock.pendingTimers()).toBe(0);
  });
});
