/**
 * Shared informers: one list-and-watch per resource type (or per named object) for the whole process, however many
 * controllers use it, started by the first user and stopped when the last one lets go.
 */
import type { Logger } from 'pino';
import { resourceTypeKey, type KubeObject } from '../api/object.ts';
import { createInformer, type Informer, type InformerClock, type InformerScope } from './informer.ts';
import type { RestClient } from './rest-client.ts';
import type { ResourceType } from './resource-path.ts';

/** One user's hold on a shared informer. */
export interface InformerLease {
  readonly informer: Informer;
  /** Lets go; the last release stops the watch and drops the cache. Idempotent. */
  release(): void;
}

/** Hands out shared informers. */
export interface InformerRegistry {
  /**
   * The informer of every object of `type`, or of the one object `scope` names; with `filter`, of the
   * objects it keeps only (a different informer from the unfiltered one).
   */
  acquire(type: ResourceType, scope?: InformerScope, filter?: InformerFilter): InformerLease;
  /** Resource types with a running informer, and how many users each has (for metrics and tests). */
  active(): Map<string, number>;
  /** Resource types whose informer has not completed its first list (for `/readyz`). */
  unsynced(): string[];
}

/** A narrower informer: a label selector the API server applies, then what the cache keeps of it. */
export interface InformerFilter {
  /** Names the filter: two acquires with the same id share one informer. */
  id: string;
  labelSelector?: string | undefined;
  keep?: ((obj: KubeObject) => boolean) | undefined;
}

/** What the registry needs to build informers. */
export interface InformerRegistryOptions {
  client: RestClient;
  clock: InformerClock;
  logger: Logger;
  /** What every informer keeps of each object (the informers' `transform`). */
  transform?: ((obj: KubeObject) => KubeObject) | undefined;
}

interface Entry {
  informer: Informer;
  users: number;
  stop: AbortController;
}

/** Creates a registry; informers start on first acquire. */
export function createInformerRegistry(options: InformerRegistryOptions): InformerRegistry {
  const entries = new Map<string, Entry>();

  const start = (key: string, type: ResourceType, scope: InformerScope | undefined, filter: InformerFilter | undefined): Entry => {
    const stop = new AbortController();
    const logger = options.logger.child({ resource: key });
    const informer = createInformer({
      client: options.client, type, scope, labelSelector: filter?.labelSelector, keep: filter?.keep, clock: options.clock, logger, transform: options.transform,
    });
    informer.run(stop.signal).catch((err: unknown) => logger.error({ err }, 'informer stopped unexpectedly'));
    return { informer, users: 0, stop };
  };

  return {
    acquire(type, scope, filter) {
      const key = `${scope ? `${resourceTypeKey(type)}/${scope.namespace}/${scope.name}` : resourceTypeKey(type)}${filter ? `?${filter.id}` : ''}`;
      let entry = entries.get(key);
      if (!entry) entries.set(key, (entry = start(key, type, scope, filter)));
      entry.users++;
      const held = entry;
      let released = false;
      return {
        informer: held.informer,
        release() {
          if (released) return;
          released = true;
          if (--held.users > 0) return;
          held.stop.abort();
          entries.delete(key);
        },
      };
    },
    active: () => new Map([...entries].map(([key, entry]) => [key, entry.users])),
    unsynced: () => [...entries].filter(([, entry]) => !entry.informer.hasSynced()).map(([key]) => key),
  };
}
