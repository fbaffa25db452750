/**
 * The response cache of a webhook in ETag mode (docs/hook-protocol.md,
 * "Webhook TLS, authentication and ETag"): per runner, keyed by the request's root object (`kind`,
 * `namespace`, `name`), holding the last `ETag` the hook sent and the body that came with it. Unlike
 * Metacontroller's (no bound; a crash when `cacheTimeoutSeconds` is set without `cacheCleanupSeconds`),
 * it is bounded in entries and bytes, evicting the oldest first, and expiry is checked when an entry is
 * read, so it needs no timer and no janitor.
 */
import type { HookClock } from './webhook-runner.ts';

/** A cached answer: the validator to send as `If-None-Match` and the body to reuse on 304/412. */
export interface ETagEntry {
  etag: string;
  body: Buffer;
}

/** Bounds of one cache. */
export interface ETagCacheOptions {
  /** Wall time, for expiry. */
  clock: HookClock;
  /** An entry is dropped this long after it was stored; absent or 0: never (`cacheTimeoutSeconds`). */
  ttlMs?: number | undefined;
  /** At most this many entries; default {@link DEFAULT_ETAG_MAX_ENTRIES}. */
  maxEntries?: number | undefined;
  /** At most this many body bytes in all; default {@link DEFAULT_ETAG_MAX_BYTES}. */
  maxBytes?: number | undefined;
}

/** One entry per parent for 10,000 parents per hook, which covers the largest installations reported. */
export const DEFAULT_ETAG_MAX_ENTRIES = 10_000;
/** 64 MiB of cached bodies per hook. */
export const DEFAULT_ETAG_MAX_BYTES = 64 * 1024 * 1024;

/** A bounded map from root-object key to {@link ETagEntry}. */
export interface ETagCache {
  /** The live entry for `key`; an expired one is dropped and not returned. */
  get(key: string): ETagEntry | undefined;
  /** Stores (or replaces) the entry for `key` as the newest one, evicting the oldest past the bounds. */
  set(key: string, entry: ETagEntry): void;
  delete(key: string): void;
  readonly size: number;
  /** Body bytes held. */
  readonly bytes: number;
}

interface Stored extends ETagEntry {
  storedAt: number;
}

/**
 * The cache key of a hook request: its root object is `parent` (CompositeController sync, finalize and
 * customize; the customize request of a DecoratorController) or `object` (DecoratorController sync and
 * finalize). `undefined` when the request has neither with a kind and name: such a call is not cached.
 */
export function etagKeyOf(request: unknown): string | undefined {
  const root = rootOf(request);
  const kind = root?.kind;
  const name = root?.metadata?.name;
  if (typeof kind !== 'string' || typeof name !== 'string') return undefined;
  const namespace = root?.metadata?.namespace;
  return JSON.stringify([kind, typeof namespace === 'string' ? namespace : '', name]);
}

type RootObject = { kind?: unknown; metadata?: { namespace?: unknown; name?: unknown } } | undefined;

function rootOf(request: unknown): RootObject {
  if (typeof request !== 'object' || request === null) return undefined;
  const { parent, object } = request as { parent?: unknown; object?: unknown };
  return (parent ?? object) as RootObject;
}

/** Creates an empty cache. */
export function createETagCache(options: ETagCacheOptions): ETagCache {
  const ttlMs = options.ttlMs ?? 0;
  const maxEntries = options.maxEntries ?? DEFAULT_ETAG_MAX_ENTRIES;
  const maxBytes = options.maxBytes ?? DEFAULT_ETAG_MAX_BYTES;
  // A Map iterates in insertion order, and `set` re-inserts: the first key is always the oldest.
  const entries = new Map<string, Stored>();
  let bytes = 0;

  const remove = (key: string): void => {
    const stored = entries.get(key);
    if (!stored) return;
    entries.delete(key);
    bytes -= stored.body.length;
  };
  const evictOldest = (): void => {
    const oldest = entries.keys().next();
    if (!oldest.done) remove(oldest.value);
  };

  return {
    get(key) {
      const stored = entries.get(key);
      if (!stored) return undefined;
      if (ttlMs > 0 && options.clock.now() - stored.storedAt >= ttlMs) {
        remove(key);
        return undefined;
      }
      return { etag: stored.etag, body: stored.body };
    },
    set(key, entry) {
      remove(key);
      // A body over the whole budget would only flush everything else; keep the others instead.
      if (entry.body.length > maxBytes) return;
      entries.set(key, { etag: entry.etag, body: entry.body, storedAt: options.clock.now() });
      bytes += entry.body.length;
      while (entries.size > maxEntries || bytes > maxBytes) evictOldest();
    },
    delete: remove,
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
  };
}
