import { describe, expect, it } from 'vitest';
import { fakeClock } from '../devcluster/fake-clock.test-support.ts';
import { eventFilter } from './event-filter.ts';

describe('eventFilter', () => {
  it('lets a burst through per object, then one event per refill', async () => {
    const clock = fakeClock();
    const allow = eventFilter({ clock, qps: 1 / 300, burst: 3 });
    expect([allow('a'), allow('a'), allow('a'), allow('a')]).toEqual([true, true, true, false]);
    expect(allow('b')).toBe(true);
    await clock.sleep(299_000);
    expect(allow('a')).toBe(false);
    await clock.sleep(1_000);
    expect([allow('a'), allow('a')]).toEqual([true, false]);
  });
});
