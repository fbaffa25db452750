/**
 * A supervised list-and-watch of one resource type — across all namespaces, or narrowed to one object
 * (an {@link InformerScope}) — feeding an indexed store
 * and the handlers subscribed to it. It survives everything a long-running watch meets: streams the
 * server closes (resume from the last resourceVersion), `410 Gone` (relist and emit the difference),
 * and errors (retry with backoff). Bookmarks keep the resume point fresh on quiet types.
 *
 * As client-go's reflector does it: each watch asks the server to end it after a random 5 to 10
 * minutes, so the watches of many types (and replicas) do not all reconnect at once after a restart;
 * the backoff is jittered for the same reason, and starts again from its minimum only after two
 * minutes without a failure, so a watch that keeps failing soon after it connects does not hammer the
 * server; and a watch that ends within a second with no event counts as a failure.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/object.ts';
import { isGone } from './kube-api-error.ts';
import { createObjectStore, storeKey, type ReadonlyObjectStore } from './object-store.ts';
import type { RestClient, WatchEvent } from './rest-client.ts';
import { resourcePath, type ResourceType } from './resource-path.ts';

/** Receives changes; must be cheap (enqueue a key), as it runs on the watch's loop. */
export interface InformerHandler {
  onAdd?(obj: KubeObject): void;
  onUpdate?(previous: KubeObject, current: KubeObject): void;
  onDelete?(obj: KubeObject): void;
}

/** A running cache of one resource type. */
export interface Informer {
  readonly type: ResourceType;
  readonly store: ReadonlyObjectStore;
  hasSynced(): boolean;
  /** Resolves after the first complete list. */
  whenSynced(): Promise<void>;
  /** The error of the latest list or watch attempt while it is being retried; `undefined` once one succeeds. */
  lastError(): unknown;
  /** Calls `listener` with the error of every failed list or watch attempt; returns the unsubscribe. */
  onError(listener: (err: unknown) => void): () => void;
  /** Adds a handler and replays every cached object to it as an add; returns the unsubscribe. */
  subscribe(handler: InformerHandler): () => void;
  /** Lists and watches until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Narrows an informer to the one object called `name` in `namespace` (a field selector on
 * `metadata.name`), so loom can follow a single Secret with RBAC that grants only that Secret
 * (`resourceNames`) in that namespace, instead of caching every Secret in the cluster.
 */
export interface InformerScope {
  namespace: string;
  name: string;
}

/** Time for an informer: injected so no timer hides here. */
export interface InformerClock {
  now(): number;
  /** Waits between retries. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** What an informer needs. */
export interface InformerOptions {
  client: RestClient;
  type: ResourceType;
  /** Absent: every object of the type. */
  scope?: InformerScope | undefined;
  /** Only the objects this label selector matches (a replica's share of sharded parents and children). */
  labelSelector?: string | undefined;
  /**
   * What the cache keeps of what the selectors let through: an object it does not keep is treated as
   * absent, and one that stops being kept is removed (with `onDelete`). For what no selector can say
   * (a replica's share of parents not labelled yet).
   */
  keep?: ((obj: KubeObject) => boolean) | undefined;
  clock: InformerClock;
  /** A number in [0, 1) for the watch timeouts and the backoff's jitter; `Math.random` by default. */
  random?: (() => number) | undefined;
  /**
   * What is kept of each object listed or watched (client-go's `SetTransform`): drop what nobody reads
   * before it is cached, for memory. Must not change identity fields (name, namespace, resourceVersion).
   */
  transform?: ((obj: KubeObject) => KubeObject) | undefined;
  logger: Logger;
  pageSize?: number;
}

interface ListPage {
  metadata: { resourceVersion: string; continue?: string };
  items: KubeObject[];
}

const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** A failure this long after the previous one starts the backoff again from its minimum. */
const BACKOFF_RESET_MS = 120_000;
/** The shortest server-side watch timeout; each watch asks for between this and twice this. */
const MIN_WATCH_TIMEOUT_SECONDS = 300;
/** A watch that ends sooner than this with no event was refused in all but name. */
const SHORT_WATCH_MS = 1_000;

/** What a watch that ended at once with nothing is reported as. */
export class ShortWatchError extends Error {
  override readonly name = 'ShortWatchError';
}

/**
 * The backoff of one informer: doubling from {@link INITIAL_BACKOFF_MS} to {@link MAX_BACKOFF_MS},
 * each wait stretched by up to as much again at random, and back to the start once failures are
 * {@link BACKOFF_RESET_MS} apart.
 */
function backoff(clock: InformerClock, random: () => number): () => number {
  let base = INITIAL_BACKOFF_MS;
  let lastFailureAt: number | undefined;
  return () => {
    const now = clock.now();
    if (lastFailureAt !== undefined && now - lastFailureAt >= BACKOFF_RESET_MS) base = INITIAL_BACKOFF_MS;
    lastFailureAt = now;
    const wait = Math.round(base * (1 + random()));
    base = Math.min(base * 2, MAX_BACKOFF_MS);
    return wait;
  };
}

/** Creates an informer; nothing happens until {@link Informer.run}. */
export function createInformer(options: InformerOptions): Informer {
  const { client, type, logger, scope, clock } = options;
  const random = options.random ?? Math.random;
  const transform = options.transform ?? ((obj: KubeObject) => obj);
  const path = resourcePath(type, scope ? { namespace: scope.namespace } : {});
  const fieldSelector = scope ? `metadata.name=${scope.name}` : undefined;
  const { labelSelector } = options;
  const keep = options.keep ?? (() => true);
  const store = createObjectStore();
  const handlers = new Set<InformerHandler>();
  const errorListeners = new Set<(err: unknown) => void>();
  let lastError: unknown;
  let synced = false;
  let markSynced = (): void => {};
  const syncedPromise = new Promise<void>((resolve) => (markSynced = resolve));

  // A throwing handler must not cost the others the event (the store has already moved on).
  const safely = (handler: InformerHandler, call: (h: InformerHandler) => void): void => {
    try {
      call(handler);
    } catch (err) {
      logger.error({ err, resource: path }, 'an informer handler threw');
    }
  };
  const emit = (call: (h: InformerHandler) => void): void => {
    for (const handler of handlers) safely(handler, call);
  };
  const upsert = (obj: KubeObject): void => {
    const previous = store.upsert(obj);
    if (!previous) emit((h) => h.onAdd?.(obj));
    else if (previous.metadata.resourceVersion !== obj.metadata.resourceVersion) emit((h) => h.onUpdate?.(previous, obj));
  };
  const remove = (obj: KubeObject): void => {
    const previous = store.remove(storeKey(obj));
    if (previous) emit((h) => h.onDelete?.(obj));
  };
  // An object the cache stops keeping is gone as the handlers knew it: its owner then is the one to
  // wake, not the one it has now.
  const letGo = (obj: KubeObject): void => {
    const previous = store.remove(storeKey(obj));
    if (previous) emit((h) => h.onDelete?.(previous));
  };

  /** Lists every page, then brings the store (and handlers) in line with the result. */
  const relist = async (signal: AbortSignal): Promise<string> => {
    const seen = new Set<string>();
    let page: ListPage | undefined;
    do {
      page = await client.request<ListPage>({
        method: 'GET', path, signal, query: { limit: options.pageSize ?? 500, continue: page?.metadata.continue, fieldSelector, labelSelector },
      });
      for (const item of page.items) {
        const obj = transform({ ...item, apiVersion: type.apiVersion, kind: type.kind });
        if (!keep(obj)) continue;
        seen.add(storeKey(obj));
        upsert(obj);
      }
    } while (page.metadata.continue);
    for (const obj of store.list()) if (!seen.has(storeKey(obj))) remove(obj);
    return page.metadata.resourceVersion;
  };

  const apply = (event: WatchEvent): void => {
    if (event.type === 'BOOKMARK') return;
    const obj = transform(event.object as unknown as KubeObject);
    if (event.type === 'ADDED' || event.type === 'MODIFIED') {
      if (keep(obj)) upsert(obj);
      else letGo(obj);
    } else if (event.type === 'DELETED') remove(obj);
  };

  /** Where the next watch resumes; `undefined` means "relist first". */
  let resumeFrom: string | undefined;

  const listAndWatch = async (signal: AbortSignal): Promise<void> => {
    if (resumeFrom === undefined) {
      resumeFrom = await relist(signal);
      lastError = undefined;
      if (!synced) {
        synced = true;
        markSynced();
      }
    }
    const timeoutSeconds = Math.floor(MIN_WATCH_TIMEOUT_SECONDS * (1 + random()));
    const started = clock.now();
    let events = 0;
    const query = { resourceVersion: resumeFrom, allowWatchBookmarks: true, fieldSelector, labelSelector, timeoutSeconds };
    const established = (): void => logger.debug({ resource: path, resourceVersion: resumeFrom }, 'watch established');
    for await (const event of client.watch(path, query, signal, established)) {
      events++;
      apply(event);
      resumeFrom = event.object.metadata?.resourceVersion ?? resumeFrom;
    }
    if (events === 0 && clock.now() - started < SHORT_WATCH_MS && !signal.aborted) throw new ShortWatchError('the watch ended at once, with no event');
  };

  const run = async (signal: AbortSignal): Promise<void> => {
    const nextWait = backoff(clock, random);
    while (!signal.aborted) {
      try {
        await listAndWatch(signal); // A stream the server ended normally resumes at once.
      } catch (err) {
        if (signal.aborted) break;
        if (isGone(err)) {
          resumeFrom = undefined; // Too old to resume: relist and emit the difference.
          continue;
        }
        const retryInMs = nextWait();
        logger.warn({ err, resource: path, retryInMs }, 'list/watch failed; retrying');
        lastError = err;
        for (const listener of errorListeners) listener(err);
        await clock.sleep(retryInMs, signal).catch(() => undefined);
      }
    }
  };

  return {
    type,
    store,
    hasSynced: () => synced,
    whenSynced: () => syncedPromise,
    lastError: () => lastError,
    onError(listener) {
      errorListeners.add(listener);
      return () => errorListeners.delete(listener);
    },
    subscribe(handler) {
      handlers.add(handler);
      for (const obj of store.list()) safely(handler, (h) => h.onAdd?.(obj));
      return () => handlers.delete(handler);
    },
    run,
  };
}
