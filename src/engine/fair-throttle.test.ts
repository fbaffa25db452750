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
    // flood0 takes the burst and flood1 the slot that came due first; from there the three take turns.
    expect(order.slice(0, 7)).toEqual(['flood0', 'flood1', 'quiet0', 'host0', 'flood2', 'quiet1', 'flood3']);
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

describe('createFairThrottle, cancelled waits', () => {
  it('drops a wait whose signal aborts while it is queued: it is rejected and takes no slot', async () => {
    const clock = manualClock();
    let reserved = 0;
    const bucket = new TokenBucket({ clock, qps: 1, burst: 1 });
    const throttle = createFairThrottle({ clock, limiter: { when: () => (reserved++, bucket.when()) } });
    const order: string[] = [];
    await throttle.wait('a');
    const cancel = new AbortController();
    const cancelled = throttle.wait('a', cancel.signal).then(() => order.push('cancelled'), (err: unknown) => order.push(`rejected: ${String(err)}`));
    const queued = Array.from({ length: 3 }, (_, i) => throttle.wait('b', cancel.signal).then(() => order.push(`b${i}`), () => order.push(`b${i} rejected`)));
    const kept = throttle.wait('c').then(() => order.push('c'));
    cancel.abort(new Error('gave up'));
    await clock.advance(1_000);
    await Promise.all([cancelled, ...queued, kept]);
    // The next slot after the first request goes to the one wait still wanted, a second later.
    expect(order).toEqual(['rejected: Error: gave up', 'b0 rejected', 'b1 rejected', 'b2 rejected', 'c']);
    // The first request's slot, and the one reserved while the others waited, which went to c.
    expect(reserved).toBe(2);
  });

  it('rejects at once a wait whose signal has already aborted, taking no slot', async () => {
    const clock = manualClock();
    let reserved = 0;
    const throttle = createFairThrottle({ clock, limiter: { when: () => (reserved++, 0) } });
    await expect(throttle.wait('a', AbortSignal.abort(new Error('too late')))).rejects.toThrow('too late');
    expect(reserved).toBe(0);
  });

  it('serves a tenant that comes late to another tenant\'s storm within one slot per busy tenant', async () => {
    const clock = manualClock();
    const throttle = createFairThrottle({ clock, limiter: new TokenBucket({ clock, qps: 5, burst: 1 }) });
    const storm = Array.from({ length: 1_000 }, () => throttle.wait('storm'));
    await clock.advance(2_000);
    let granted = -1;
    const start = clock.now();
    const late = throttle.wait('newcomer').then(() => (granted = clock.now() - start));
    for (let i = 0; i < 5 && granted < 0; i++) await clock.advance(200);
    await late;
    // The slot already reserved for the storm, then the newcomer's: two slots of 200 ms at most.
    expect(granted).toBeLessThanOrEqual(400);
    await clock.advance(1_000 * 200);
    await Promise.all(storm);
  });
});
