import { describe, expect, it } from 'vitest';
import { manualClock } from './manual-clock.test-support.ts';
import { defaultControllerRateLimiter, ExponentialBackoff, maxOf, TokenBucket, type RateLimiter } from './rate-limiter.ts';

function delays(limiter: RateLimiter, key: string, count: number): number[] {
  return Array.from({ length: count }, () => limiter.when(key));
}

describe('ExponentialBackoff', () => {
  it('doubles from 5 ms and caps at 1000 s by default', () => {
    expect(delays(new ExponentialBackoff(), 'default/web', 21)).toEqual([
      5, 10, 20, 40, 80, 160, 320, 640, 1_280, 2_560, 5_120, 10_240, 20_480, 40_960, 81_920, 163_840, 327_680,
      655_360, 1_000_000, 1_000_000, 1_000_000,
    ]);
  });

  it('stays at the cap however many retries pile up', () => {
    const backoff = new ExponentialBackoff();
    const all = delays(backoff, 'a', 1_200);
    expect(all.at(-1)).toBe(1_000_000);
    expect(backoff.retries('a')).toBe(1_200);
  });

  it('takes its base and cap from options', () => {
    expect(delays(new ExponentialBackoff({ baseDelayMs: 100, maxDelayMs: 500 }), 'a', 5)).toEqual([100, 200, 400, 500, 500]);
  });

  it('counts retries per key and starts over after forget', () => {
    const backoff = new ExponentialBackoff();
    delays(backoff, 'a', 3);
    expect(backoff.when('b')).toBe(5);
    expect([backoff.retries('a'), backoff.retries('b'), backoff.retries('c')]).toEqual([3, 1, 0]);
    backoff.forget('a');
    expect(backoff.retries('a')).toBe(0);
    expect(backoff.when('a')).toBe(5);
    expect(backoff.when('b')).toBe(10);
  });

  it.each([{ baseDelayMs: 0 }, { maxDelayMs: -1 }, { baseDelayMs: Number.NaN }])('rejects %o', (options) => {
    expect(() => new ExponentialBackoff(options)).toThrow(RangeError);
  });
});

describe('TokenBucket', () => {
  it('lets a burst of 100 through, then spaces retries 100 ms apart at 10 qps', () => {
    const bucket = new TokenBucket({ clock: manualClock() });
    const all = delays(bucket, 'any', 103);
    expect(all.slice(0, 100).every((d) => d === 0)).toBe(true);
    expect(all.slice(100)).toEqual([100, 200, 300]);
  });

  it('refills with time, up to the burst', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ clock, qps: 2, burst: 3 });
    expect(delays(bucket, 'a', 4)).toEqual([0, 0, 0, 500]);
    await clock.advance(750); // 1.5 tokens back: the debt of 1 is paid, half a token left
    expect(delays(bucket, 'a', 2)).toEqual([250, 750]);
    await clock.advance(60_000); // long idle: full again, but never more than the burst
    expect(delays(bucket, 'a', 4)).toEqual([0, 0, 0, 500]);
  });

  it('is shared by all keys and keeps no per-key history', () => {
    const bucket = new TokenBucket({ clock: manualClock(), qps: 1, burst: 1 });
    expect([bucket.when(), bucket.when()]).toEqual([0, 1_000]);
    bucket.forget();
    expect(bucket.retries()).toBe(0);
    expect(bucket.when()).toBe(2_000);
  });

  it.each([{ qps: 0 }, { burst: 0 }, { qps: Number.POSITIVE_INFINITY }])('rejects %o', (options) => {
    expect(() => new TokenBucket({ clock: manualClock(), ...options })).toThrow(RangeError);
  });
});

describe('maxOf / defaultControllerRateLimiter', () => {
  it('waits the longer of backoff and bucket, and the bucket spends a token on every retry', () => {
    const limiter = defaultControllerRateLimiter({ clock: manualClock(), qps: 1, burst: 2 });
    expect(limiter.when('a')).toBe(5); // backoff wins
    expect(limiter.when('b')).toBe(5);
    expect(limiter.when('c')).toBe(1_000); // bucket empty: it wins
    expect(limiter.when('a')).toBe(2_000);
  });

  it('uses client-go defaults: backoff from 5 ms and a burst of 100', () => {
    const limiter = defaultControllerRateLimiter({ clock: manualClock() });
    const first = Array.from({ length: 100 }, (_, i) => limiter.when(`k${i}`));
    expect(first.every((d) => d === 5)).toBe(true);
    expect(limiter.when('k100')).toBe(100);
  });

  it('forgets everywhere and reports the largest retry count', () => {
    const counts = [2, 7];
    const forgotten: string[] = [];
    const part = (n: number): RateLimiter => ({ when: () => n, forget: (key) => forgotten.push(key), retries: () => counts[n]! });
    const limiter = maxOf(part(0), part(1));
    expect(limiter.when('a')).toBe(1);
    expect(limiter.retries('a')).toBe(7);
    limiter.forget('a');
    expect(forgotten).toEqual(['a', 'a']);
  });
});
