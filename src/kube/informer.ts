/**
 * A supervised list-and-watch of one resource type — across all namespaces, or narrowed to one object
 * (an {@link InformerScope}) — feeding an indexed store
 * and the handlers subscribed to it. It survives everything a long-running watch meets: streams the
 * server closes (resume from the last resourceVersion), `410 Gone` (relist and emit the difference),
 * and errors (retry with backoff). Bookmarks keep the resume point fresh on quiet types.
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

/** What an informer needs. */
export interface InformerOptions {
  client: RestClient;
  type: ResourceType;
  /** Absent: every object of the type. */
  scope?: InformerScope | undefined;
  /** Waits between retries; injected so no timer hides here. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  logger: Logger;
  pageSize?: number;
}

interface ListPage {
  metadata: { resourceVersion: string; continue?: string };
  items: KubeObject[];
}

const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/** Creates an informer; nothing happens until {@link Informer.run}. */
export function createInformer(options: InformerOptions): Informer {
  const { client, type, logger, scope } = options;
  const path = resourcePath(type, scope ? { namespace: scope.namespace } : {});
  const fieldSelector = scope ? `metadata.name=${scope.name}` : undefined;
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

  /** Lists every page, then brings the store (and handlers) in line with the result. */
  const relist = async (signal: AbortSignal): Promise<string> => {
    const seen = new Set<string>();
    let page: ListPage | undefined;
    do {
      page = await client.request<ListPage>({
        method: 'GET', path, signal, query: { limit: options.pageSize ?? 500, continue: page?.metadata.continue, fieldSelector },
      });
      for (const item of page.items) {
        const obj = { ...item, apiVersion: type.apiVersion, kind: type.kind };
        seen.add(storeKey(obj));
        upsert(obj);
      }
    } while (page.metadata.continue);
    for (const obj of store.list()) if (!seen.has(storeKey(obj))) remove(obj);
    return page.metadata.resourceVersion;
  };

  const apply = (event: WatchEvent): void => {
    const obj = event.object as unknown as KubeObject;
    if (event.type === 'ADDED' || event.type === 'MODIFIED') upsert(obj);
    else if (event.type === 'DELETED') remove(obj);
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
    for await (const event of client.watch(path, { resourceVersion: resumeFrom, allowWatchBookmarks: true, fieldSelector }, signal)) {
      apply(event);
      resumeFrom = event.object.metadata?.resourceVersion ?? resumeFrom;
    }
  };

  const run = async (signal: AbortSignal): Promise<void> => {
    let backoffMs = INITIAL_BACKOFF_MS;
    while (!signal.aborted) {
      try {
        await listAndWatch(signal); // A stream the server ended normally resumes at once.
        backoffMs = INITIAL_BACKOFF_MS;
      } catch (err) {
        if (signal.aborted) break;
        if (isGone(err)) {
          resumeFrom = undefined; // Too old to resume: relist and emit the difference.
          continue;
        }
        logger.warn({ err, resource: path, retryInMs: backoffMs }, 'list/watch failed; retrying');
        lastError = err;
        for (const listener of errorListeners) listener(err);
        await options.sleep(backoffMs, signal).catch(() => undefined);
        backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
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
