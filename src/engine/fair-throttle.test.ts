import { describe, expect, it } from 'vitest';
import { createFairThrottle } from './fair-throttle.ts';
import { manualClock } from './manual-clock.test-support.ts';
import { TokenBucket } from './rate-limiter.ts';

describe('createFairThrottle', () => {
  it('lets tenants take turns, however many requests one of them has waiting', async () => {
    const clock = manualClock();
    const throttle = createFairThrottle({ clock, limiter: new TokenBucket({ clock, qps: 10, burst: 1 }) });
    const order: string[] = [];
    const ask = (tenant: string, n: number) => Array.from({ length: n }, (_, i) => throttle.wait(tenant).then(() => order.push(`${tenant}${i}`)));
    const all = [...ask('flood', 100), ...ask('quiet', 2), ...ask('host', 1)];
    for (let i = 0; i < 10; i++) await clock.advance(100);
    // flood0 takes the burst and flood1 the slot reserved before anyone else asked; flood2 was queued
    // before the others, and from there the three take turns.
    expect(order.slice(0, 7)).toEqual(['flood0', 'flood1', 'flood2', 'quiet0', 'host0', 'flood3', 'quiet1']);
    await clock.advance(100 * 100);
    await Promise.all(all);
    expect(order).toHaveLength(103);
  });

  it('grants at once while the limiter has tokens', async () => {
    const clock = manualClock();
    const throttle = createFairThrottle({ clock, limiter: new TokenBucket({ clock, qps: 1, burst: 3 }) });
    let granted = 0;
    for (let i = 0; i < 3; i++) void throttle.wait('a').then(() => granted++);
    await Promise.resolve();
    await Promise.resolve();
    expect(granted).toBe(3);
  });
});
