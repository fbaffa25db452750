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

describe('eventFilter memory', () => {
  it('keeps the buckets of the 4,096 objects seen most recently, as client-go does, and forgets older ones', () => {
    const allow = eventFilter({ clock: fakeClock(), qps: 0, burst: 1 });
    expect([allow('first'), allow('first')]).toEqual([true, false]);
    for (let i = 0; i < 4_096; i++) allow(`other-${i}`);
    // Its bucket was dropped: a forgotten object starts with a full burst again.
    expect(allow('first')).toBe(true);
  });

  it('keeps an object it keeps hearing about', () => {
    const allow = eventFilter({ clock: fakeClock(), qps: 0, burst: 1 });
    allow('busy');
    for (let i = 0; i < 4_096; i++) {
      allow(`other-${i}`);
      if (i % 1_000 === 0) allow('busy');
    }
    expect(allow('busy')).toBe(false);
  });
});
