/**
 * The related objects of one controller's parents (Metacontroller §3.4–3.5): the customize hook is
 * asked which objects a parent needs, its answer is kept per parent UID and generation, the related
 * types are watched from the first parent that asks for them, and a related object's change wakes
 * exactly the parents that select it (through {@link RelatedIndex}, not a scan of every parent).
 * Shared by both controller kinds: it needs a parent, a customize hook and a way to enqueue a parent.
 */
import type { Logger } from 'pino';
import {
  customizeRequest, decodeCustomizeResponse, objectKey, responseModeOf, type Hook, type KubeObject, type TypedObjects,
} from '../api/index.ts';
import { createRelatedIndex, relatedResourceKey, relatedSelection, selects, type RelatedSelection } from '../core/index.ts';
import { RetryAfterError } from '../engine/index.ts';
import type { HookRunner } from '../hooks/index.ts';
import type { InformerHandler, InformerLease, ReadonlyObjectStore, ResourceType } from '../kube/index.ts';
import { resolveResource, ResourceNotFoundError, type Host } from './host.ts';

/** What a controller asks of its related objects. */
export interface RelatedObjects {
  /**
   * The objects `parent` selects, for its hook request. Calls the customize hook unless its answer
   * for this UID and generation is cached; throws {@link RetryAfterError} while a related type's
   * cache is still filling (no failure, no event).
   */
  of(parent: KubeObject, signal: AbortSignal): Promise<TypedObjects>;
  /** Forgets a parent that is gone. */
  forget(parent: KubeObject): void;
  /** Stops routing and lets go of the related caches. */
  stop(): void;
}

/** What {@link createRelatedObjects} needs. */
export interface RelatedObjectsOptions {
  host: Host;
  /** The controller object, sent in every customize request. */
  controller: KubeObject;
  /** The customize hook and its runner. */
  hook: Hook;
  runner: HookRunner;
  /** Queues a parent for a sync, by the key {@link RelatedObjectsOptions.parentKey} gave it. */
  enqueue(parentKey: string): void;
  /** The queue key of a parent; default `namespace/name`. */
  parentKey?: ((parent: KubeObject) => string) | undefined;
  logger: Logger;
}

/** How long a customize answer is trusted without a parent change (as Metacontroller: 20 min). */
const CUSTOMIZE_TTL_MS = 20 * 60_000;
/** How soon a parent waiting for a related cache to fill is tried again. */
const CACHE_WAIT_MS = 500;

interface TypedSelection {
  selection: RelatedSelection;
  type: ResourceType;
}

interface CachedAnswer {
  generation: number | undefined;
  expiresAt: number;
  selections: TypedSelection[];
}

const NAMESPACES = { apiVersion: 'v1', resource: 'namespaces' };
const storeKeyOf = (obj: KubeObject): string => objectKey(obj.metadata.namespace, obj.metadata.name ?? '');

/** Creates the related objects of one controller; nothing is watched until a parent asks. */
export function createRelatedObjects(options: RelatedObjectsOptions): RelatedObjects {
  const { host } = options;
  const keyOf = options.parentKey ?? storeKeyOf;
  const index = createRelatedIndex();
  const answers = new Map<string, CachedAnswer>();
  const watches = createWatches(host);
  const enqueueAll = (parents: Iterable<string>): void => {
    for (const parent of parents) options.enqueue(parent);
  };
  const namespaceLabels = (namespace: string) => watches.store(NAMESPACE_SELECTORS)?.get(namespace)?.metadata.labels ?? undefined;

  const routeRelated = (resourceKey: string): InformerHandler => {
    const parentsOf = (obj: KubeObject) => index.parentsSelecting(resourceKey, obj, namespaceLabels);
    return {
      onAdd: (obj) => enqueueAll(parentsOf(obj)),
      onUpdate: (previous, current) => enqueueAll(new Set([...parentsOf(previous), ...parentsOf(current)])),
      onDelete: (obj) => enqueueAll(parentsOf(obj)),
    };
  };
  // A namespace's labels decide what namespace selectors pick in it.
  const routeNamespaces: InformerHandler = {
    onAdd: (ns) => enqueueAll(index.parentsOfNamespaceChange(undefined, ns.metadata.labels ?? {})),
    onUpdate: (previous, current) => enqueueAll(index.parentsOfNamespaceChange(previous.metadata.labels ?? {}, current.metadata.labels ?? {})),
    onDelete: (ns) => enqueueAll(index.parentsOfNamespaceChange(ns.metadata.labels ?? {}, undefined)),
  };

  const customize = async (parent: KubeObject, signal: AbortSignal): Promise<TypedSelection[]> => {
    const raw = await options.runner.call(customizeRequest({ controller: options.controller, parent }), signal);
    const { response, ignoredFields } = decodeCustomizeResponse(raw, responseModeOf(options.hook));
    if (ignoredFields.length > 0) options.logger.debug({ ignoredFields }, 'customize hook response had fields loom ignores');
    return Promise.all(response.relatedResources.map(async (rule) => {
      const type = await resolveRelated(host, rule.apiVersion, rule.resource);
      const scope = { version: options.hook.version, parentNamespace: parent.metadata.namespace, namespaced: type.namespaced };
      return { type, selection: relatedSelection(rule, scope) };
    }));
  };

  const selectionsOf = async (parent: KubeObject, signal: AbortSignal): Promise<TypedSelection[]> => {
    const uid = parent.metadata.uid ?? '';
    const cached = answers.get(uid);
    if (cached && cached.generation === parent.metadata.generation && cached.expiresAt > host.clock.now()) return cached.selections;
    const selections = await customize(parent, signal);
    answers.set(uid, { generation: parent.metadata.generation, expiresAt: host.clock.now() + CUSTOMIZE_TTL_MS, selections });
    index.set(keyOf(parent), selections.map((s) => s.selection));
    return selections;
  };

  /** Starts every watch the selections need; throws while one of them is still listing. */
  const watchAll = async (selections: TypedSelection[]): Promise<void> => {
    for (const { type } of selections) watches.start(relatedResourceKey(type), type, routeRelated(relatedResourceKey(type)));
    if (selections.some(({ selection }) => selection.namespaceSelector)) {
      watches.start(NAMESPACE_SELECTORS, await resolveRelated(host, NAMESPACES.apiVersion, NAMESPACES.resource), routeNamespaces);
    }
    const filling = watches.filling();
    if (filling.length > 0) throw new RetryAfterError(`waiting for the caches of ${filling.join(', ')} to fill`, { retryAfterMs: CACHE_WAIT_MS });
  };

  return {
    async of(parent, signal) {
      const selections = await selectionsOf(parent, signal);
      await watchAll(selections);
      const objects = new Set<KubeObject>();
      for (const { selection, type } of selections) {
        for (const obj of candidatesOf(selection, watches.store(relatedResourceKey(type))!)) if (selects(selection, obj, namespaceLabels)) objects.add(obj);
      }
      return { objects: [...objects], declaredTypes: selections.map(({ type }) => ({ apiVersion: type.apiVersion, kind: type.kind })) };
    },
    forget(parent) {
      answers.delete(parent.metadata.uid ?? '');
      index.delete(keyOf(parent));
    },
    stop: () => watches.stop(),
  };
}

/** The watch that tells namespace selectors a namespace's labels (apart from any rule on namespaces). */
const NAMESPACE_SELECTORS = 'namespace-selectors';

/** The related caches one controller holds, each with its routing handler, by a name of its use. */
interface Watches {
  /** Starts the watch `name` unless it runs. */
  start(name: string, type: ResourceType, handler: InformerHandler): void;
  /** The cache of watch `name` once filled. */
  store(name: string): ReadonlyObjectStore | undefined;
  /** Resource types whose first list has not completed. */
  filling(): string[];
  stop(): void;
}

function createWatches(host: Host): Watches {
  const held = new Map<string, { lease: InformerLease; unsubscribe: () => void }>();
  return {
    start(name, type, handler) {
      if (held.has(name)) return;
      const lease = host.informers.acquire(type);
      held.set(name, { lease, unsubscribe: lease.informer.subscribe(handler) });
    },
    store(name) {
      const informer = held.get(name)?.lease.informer;
      return informer?.hasSynced() ? informer.store : undefined;
    },
    filling: () => [...held.values()].filter(({ lease }) => !lease.informer.hasSynced()).map(({ lease }) => relatedResourceKey(lease.informer.type)),
    stop() {
      for (const { lease, unsubscribe } of held.values()) {
        unsubscribe();
        lease.release();
      }
      held.clear();
    },
  };
}

/** The objects a selection can pick, through the store's indexes where the selection allows. */
function candidatesOf(selection: RelatedSelection, store: ReadonlyObjectStore): KubeObject[] {
  const { namespace, names } = selection;
  if (namespace === undefined) return store.list();
  if (!names) return store.byNamespace(namespace);
  return names.flatMap((name) => store.get(objectKey(namespace || undefined, name)) ?? []);
}

/** A related type from discovery; one refresh first when it is not known yet (a CRD just created). */
async function resolveRelated(host: Host, apiVersion: string, resource: string): Promise<ResourceType> {
  try {
    return resolveResource(host, apiVersion, resource);
  } catch (err) {
    if (!(err instanceof ResourceNotFoundError)) throw err;
    await host.refreshDiscovery();
    return resolveResource(host, apiVersion, resource);
  }
}
