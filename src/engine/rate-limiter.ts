/**
 * How long a key waits before it is retried: client-go's default controller rate limiter, which
 * Metacontroller uses for every controller's queue. Per-key exponential backoff (5 ms, 10 ms, 20 ms, …
 * capped at 1000 s) stops one broken parent from spinning; the overall token bucket (10 qps, burst 100)
 * stops a storm of failing parents from hammering hooks and the API server. The delay is the larger of
 * the two.
 */
import type { Clock } from './clock.ts';

/** Decides retry delays, per key. */
export interface RateLimiter {
  /** Records one more retry of `key` and returns how many milliseconds it should wait first. */
  when(key: string): number;
  /** Forgets `key`'s history: its next {@link RateLimiter.when} starts again from the shortest delay. */
  forget(key: string): void;
  /** How many times `key` has been retried since it was last forgotten. */
  retries(key: string): number;
}

/** Per-key exponential backoff settings. */
export interface ExponentialBackoffOptions {
  /** First delay; default 5 ms. */
  baseDelayMs?: number | undefined;
  /** Largest delay; default 1000 s. */
  maxDelayMs?: number | undefined;
}

/** Token bucket settings. */
export interface TokenBucketOptions {
  clock: Clock;
  /** Tokens added per second; default 10. */
  qps?: number | undefined;
  /** Bucket size, which is also how many retries may go at once from full; default 100. */
  burst?: number | undefined;
}

/** Settings of {@link defaultControllerRateLimiter}: both parts are configurable. */
export type ControllerRateLimiterOptions = ExponentialBackoffOptions & TokenBucketOptions;

function requirePositive(value: number, what: string): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new RangeError(`${what} must be a positive number, got ${value}`);
  return value;
}

/**
 * Per-key exponential backoff: the n-th retry since the last {@link RateLimiter.forget} waits
 * `baseDelayMs * 2^(n-1)`, capped at `maxDelayMs` (client-go's `ItemExponentialFailureRateLimiter`).
 */
export class ExponentialBackoff implements RateLimiter {
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #failures = new Map<string, number>();

  constructor(options: ExponentialBackoffOptions = {}) {
    this.#baseDelayMs = requirePositive(options.baseDelayMs ?? 5, 'baseDelayMs');
    this.#maxDelayMs = requirePositive(options.maxDelayMs ?? 1_000_000, 'maxDelayMs');
  }

  when(key: string): number {
    const exponent = this.#failures.get(key) ?? 0;
    this.#failures.set(key, exponent + 1);
    // 2 ** exponent becomes Infinity after ~1000 retries; the cap still applies.
    return Math.min(this.#baseDelayMs * 2 ** exponent, this.#maxDelayMs);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  retries(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** Float noise from `elapsed * qps / 1000` must not turn a 100 ms wait into 101 ms. */
const EPSILON_MS = 1e-6;

/**
 * One bucket shared by every key (golang.org/x/time/rate as client-go uses it): it starts full, refills
 * at `qps` tokens a second up to `burst`, and every {@link RateLimiter.when} takes a token — going into
 * debt when none is left, so each caller in a burst waits one refill interval longer than the one
 * before. Keys have no history here: `forget` does nothing and `retries` is always 0.
 */
export class TokenBucket implements RateLimiter {
  readonly #clock: Clock;
  readonly #qps: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;

  constructor(options: TokenBucketOptions) {
    this.#clock = options.clock;
    this.#qps = requirePositive(options.qps ?? 10, 'qps');
    this.#burst = requirePositive(options.burst ?? 100, 'burst');
    this.#tokens = this.#burst;
    this.#last = this.#clock.now();
  }

  when(): number {
    const now = this.#clock.now();
    // A clock that steps back refills nothing rather than draining the bucket.
    const elapsedMs = Math.max(0, now - this.#last);
    this.#last = Math.max(now, this.#last);
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsedMs * this.#qps) / 1000) - 1;
    if (this.#tokens >= 0) return 0;
    return Math.ceil((-this.#tokens * 1000) / this.#qps - EPSILON_MS);
  }

  forget(): void {
    // Shared by every key: nothing per key to reset.
  }

  retries(): number {
    return 0;
  }
}

/**
 * Combines limiters: `when` asks every one (so each records the retry, and the bucket spends its
 * token) and returns the longest delay; `forget` forgets everywhere; `retries` is the largest count.
 */
export function maxOf(...limiters: readonly RateLimiter[]): RateLimiter {
  return {
    when: (key) => limiters.reduce((longest, limiter) => Math.max(longest, limiter.when(key)), 0),
    forget: (key) => {
      for (const limiter of limiters) limiter.forget(key);
    },
    retries: (key) => limiters.reduce((most, limiter) => Math.max(most, limiter.retries(key)), 0),
  };
}

/**
 * client-go's `DefaultControllerRateLimiter`: per-key exponential backoff 5 ms → 1000 s, combined with
 * a 10 qps / burst 100 token bucket on `clock`. Every number can be overridden.
 */
export function defaultControllerRateLimiter(options: ControllerRateLimiterOptions): RateLimiter {
  return maxOf(new ExponentialBackoff(options), new TokenBucket(options));
}
