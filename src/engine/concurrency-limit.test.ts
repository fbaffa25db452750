import { describe, expect, it } from 'vitest';
import { createConcurrencyLimit } from './concurrency-limit.ts';
import { settle } from './manual-clock.test-support.ts';

/** A task that runs until `finish` is called; counts how many run at once. */
function tasks() {
  let now = 0;
  let peak = 0;
  const finishers: (() => void)[] = [];
  const task = () => new Promise<void>((resolve) => {
    now++;
    peak = Math.max(peak, now);
    finishers.push(() => {
      now--;
      resolve();
    });
  });
  return { task, peak: () => peak, finishOne: () => finishers.shift()?.(), started: () => finishers.length };
}

describe('concurrency limit', () => {
  it('runs at most max tasks at once, and every task in the end, in arrival order', async () => {
    const limit = createConcurrencyLimit(2);
    const t = tasks();
    const order: number[] = [];
    const all = Array.from({ length: 10 }, (_, i) => limit.run(() => t.task().then(() => order.push(i)), new AbortController().signal));
    await settle();
    expect(t.started()).toBe(2);
    while (t.started() > 0) {
      t.finishOne();
      await settle();
    }
    await Promise.all(all);
    expect(t.peak()).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(limit.running()).toBe(0);
  });

  it('frees the slot of a task that fails', async () => {
    const limit = createConcurrencyLimit(1);
    await expect(limit.run(() => Promise.reject(new Error('boom')), new AbortController().signal)).rejects.toThrow('boom');
    await expect(limit.run(() => Promise.resolve('next'), new AbortController().signal)).resolves.toBe('next');
  });

  it('lets a wait be given up without running the task or taking a slot', async () => {
    const limit = createConcurrencyLimit(1);
    const t = tasks();
    const first = limit.run(t.task, new AbortController().signal);
    const giveUp = new AbortController();
    let ran = false;
    const waiting = limit.run(() => {
      ran = true;
      return Promise.resolve();
    }, giveUp.signal);
    const third = limit.run(t.task, new AbortController().signal);
    giveUp.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    t.finishOne();
    await settle();
    expect(t.started()).toBe(1);
    t.finishOne();
    await Promise.all([first, third]);
    expect(ran).toBe(false);
    expect(limit.running()).toBe(0);
  });

  it('has no limit at 0', async () => {
    const limit = createConcurrencyLimit(0);
    const t = tasks();
    const all = Array.from({ length: 7 }, () => limit.run(t.task, new AbortController().signal));
    await settle();
    expect(t.started()).toBe(7);
    while (t.started() > 0) t.finishOne();
    await Promise.all(all);
  });
});
