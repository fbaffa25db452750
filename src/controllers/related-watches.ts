/**
 * The related-object caches one controller holds: shared informers taken on first use, each with the
 * handler that routes its events to parents, named by their use. A cache that takes too long to fill
 * (loom may not list the type: RBAC, a broken conversion webhook) is reported as stuck rather than
 * waited on forever.
 */
import type { InformerHandler, InformerLease, ReadonlyObjectStore, ResourceType } from '../kube/index.ts';
import type { Host } from './host.ts';
import { resourceTypeKey } from '../api/index.ts';

/** How long a related cache may take to fill before the parents waiting for it fail (as a controller's own caches). */
export const RELATED_CACHE_TIMEOUT_MS = 60_000;

/** Which of some watches are not ready yet. */
export interface WatchProgress {
  /** Still listing, within the time allowed. */
  filling: string[];
  /** Still listing after {@link RELATED_CACHE_TIMEOUT_MS}. */
  stuck: string[];
}

/** The related caches of one controller. */
export interface RelatedWatches {
  /** Starts the watch `name` unless it runs. */
  start(name: string, type: ResourceType, handler: InformerHandler): void;
  /** The cache of watch `name` once filled. */
  store(name: string): ReadonlyObjectStore | undefined;
  /** How far the watches `names` are. */
  progress(names: Iterable<string>): WatchProgress;
  stop(): void;
}

interface Held {
  lease: InformerLease;
  unsubscribe: () => void;
  startedAt: number;
}

/** Creates an empty set of watches. */
export function createRelatedWatches(host: Host): RelatedWatches {
  const held = new Map<string, Held>();
  return {
    start(name, type, handler) {
      if (held.has(name)) return;
      const lease = host.informers.acquire(type);
      held.set(name, { lease, unsubscribe: lease.informer.subscribe(handler), startedAt: host.clock.now() });
    },
    store(name) {
      const informer = held.get(name)?.lease.informer;
      return informer?.hasSynced() ? informer.store : undefined;
    },
    progress(names) {
      const progress: WatchProgress = { filling: [], stuck: [] };
      for (const name of new Set(names)) {
        const watch = held.get(name);
        if (!watch || watch.lease.informer.hasSynced()) continue;
        const late = host.clock.now() - watch.startedAt > RELATED_CACHE_TIMEOUT_MS;
        (late ? progress.stuck : progress.filling).push(resourceTypeKey(watch.lease.informer.type));
      }
      return progress;
    },
    stop() {
      for (const { lease, unsubscribe } of held.values()) {
        unsubscribe();
        lease.release();
      }
      held.clear();
    },
  };
}
