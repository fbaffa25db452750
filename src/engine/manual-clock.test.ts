import { describe, expect, it } from 'vitest';
import { manualClock } from './manual-clock.test-support.ts';

describe('manualClock (test support)', () => {
  it('wakes sleepers only when advanced past their deadline, in deadline order, at that time', async () => {
    const clock = manualClock(0);
    const woke: string[] = [];
    const nap = (name: string, ms: number): Promise<void> => clock.sleep(ms).then(() => void woke.push(`${name}@${clock.now()}`));
    const all = Promise.all([nap('b', 20), nap('a', 10), nap('c', 30)]);
    await clock.advance(19);
    expect(woke).toEqual(['a@10']);
    await clock.advance(11);
    await all;
    expect(woke).toEqual(['a@10', 'b@20', 'c@30']);
    expect(clock.now()).toBe(30);
  });

  it('rejects an aborted sleep with the reason and forgets its timer', async () => {
    const clock = manualClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(100, controller.signal);
    expect(clock.pendingTimers()).toBe(1);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    expect(clock.pendingTimers()).toBe(0);
    await expect(clock.sleep(1, controller.signal)).rejects.toThrow('stop');
  });
});
