/**
 * The per-object event spam filter of `--events-qps` / `--events-burst` (client-go's default:
 * one event per 300 s per object after a burst of 25): a token bucket per object key, and events
 * beyond it are dropped rather than queued.
 */
import type { Clock } from '../engine/index.ts';

/** Settings of the filter. */
export interface EventFilterOptions {
  clock: Clock;
  qps: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Returns `allow(objectKey)`: true while the object's bucket has a token (and takes it). */
export function eventFilter(options: EventFilterOptions): (objectKey: string) => boolean {
  const buckets = new Map<string, Bucket>();
  return (objectKey) => {
    const now = options.clock.now();
    const bucket = buckets.get(objectKey) ?? { tokens: options.burst, at: now };
    bucket.tokens = Math.min(options.burst, bucket.tokens + ((now - bucket.at) / 1000) * options.qps);
    bucket.at = now;
    buckets.set(objectKey, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  };
}
