/**
 * The per-object event spam filter of `--events-qps` / `--events-burst` (client-go's default:
 * one event per 300 s per object after a burst of 25): a token bucket per object key, and events
 * beyond it are dropped rather than queued. The buckets of the 4,096 objects heard from most recently
 * are kept, as client-go keeps them: one per object ever seen would grow with every parent that ever
 * existed. A forgotten object starts again with a full burst.
 */
import type { Clock } from '../engine/index.ts';
import { LruMap } from '../api/index.ts';

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

/** How many objects' buckets are kept (client-go's `maxLruCacheEntries`). */
const MAX_OBJECTS = 4_096;

/** Returns `allow(objectKey)`: true while the object's bucket has a token (and takes it). */
export function eventFilter(options: EventFilterOptions): (objectKey: string) => boolean {
  const buckets = new LruMap<Bucket>(MAX_OBJECTS);
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
