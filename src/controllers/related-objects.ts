/**
 * The related objects of one controller's parents (docs/hook-protocol.md,
 * "Customize and related objects"): the customize hook is asked which objects a parent needs, its answer
 * is kept per parent UID and generation (content, for types without a generation), the related types are
 * watched from the first parent that asks for them, and a related object's change wakes exactly the
 * parents that select it (through {@link RelatedIndex}, not a scan of every parent). Shared by both
 * controller kinds: it needs a parent, a customize hook and a way to enqueue a parent.
 */
import type { Logger } from 'pino';
import {
  customizeRequest, decodeCustomizeResponse, objectKey, resourceTypeKey, responseModeOf, type Hook, type KubeObject, type TypedObjects,
} from '../api/index.ts';
import {
  createRelatedIndex, fingerprintOf, relatedSelection, selects, type NamespaceLabels, type RelatedIndex, type RelatedSelection,
} from '../core/index.ts';
import { RetryAfterError } from '../engine/index.ts';
import type { HookRunner } from '../hooks/index.ts';
import type { InformerHandler, ReadonlyObjectStore, ResourceType } from '../kube/index.ts';
import { resolveResource, ResourceNotFoundError, type Host } from './host.ts';
import { createRelatedWatches, RELATED_CACHE_TIMEOUT_MS } from './related-watches.ts';

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

/** What {@link createRelatedObjects} needs; `K` is the queue key of a parent. */
export type RelatedObjectsOptions<K> = ParentKeys<K> & {
  host: Host;
  /** The controller object, sent in every customize request. */
  controller: KubeObject;
  /** The customize hook and its runner. */
  hook: Hook;
  runner: HookRunner;
  /** Queues a parent for a sync, by the key `parentKey` gave it. */
  enqueue(parentKey: K): void;
  logger: Logger;
};

/**
 * The queue key of a parent and what tells two keys apart: `namespace/name` strings by default; a
 * controller with other keys (a decorator's name a type too) gives both.
 */
type ParentKeys<K> = K extends string
  ? { parentKey?: ((parent: KubeObject) => K) | undefined; keyId?: ((key: K) => string) | undefined }
  : { parentKey: (parent: KubeObject) => K; keyId: (key: K) => string };

/** How long a customize answer is trusted without a parent change (as Metacontroller: 20 min). */
const CUSTOMIZE_TTL_MS = 20 * 60_000;
/** How soon a parent waiting for a related cache to fill is tried again. */
const CACHE_WAIT_MS = 500;

interface TypedSelection {
  selection: RelatedSelection;
  type: ResourceType;
}

interface CachedAnswer {
  version: string;
  expiresAt: number;
  selections: TypedSelection[];
}

const NAMESPACES = { apiVersion: 'v1', resource: 'namespaces' };
const storeKeyOf = (obj: KubeObject): string => objectKey(obj.metadata.namespace, obj.metadata.name ?? '');

/** Creates the related objects of one controller; nothing is watched until a parent asks. */
export function createRelatedObjects<K = string>(options: RelatedObjectsOptions<K>): RelatedObjects {
  const { host } = options;
  // Without them, K is a string (ParentKeys requires both otherwise): `namespace/name`, its own id.
  const keyOf = options.parentKey ?? ((parent: KubeObject) => storeKeyOf(parent) as K);
  const idOf = options.keyId ?? ((key: K) => key as string);
  /** The key of each parent the index knows, by its id: the index keeps ids. */
  const parentKeys = new Map<string, K>();
  const index = createRelatedIndex();
  const answers = new Map<string, CachedAnswer>();
  const watches = createRelatedWatches(host);
  /** The customize call in flight per parent UID; `forget` drops it, so a late answer is not kept. */
  const inFlight = new Map<string, symbol>();
  const enqueueAll = (parents: Iterable<string>): void => {
    for (const id of parents) {
      const key = parentKeys.get(id);
      if (key !== undefined) options.enqueue(key);
    }
  };
  const namespaceLabels = (namespace: string) => watches.store(NAMESPACE_SELECTORS)?.get(namespace)?.metadata.labels ?? undefined;

  const routes = routingHandlers(index, enqueueAll, namespaceLabels);

  const selectionsOf = async (parent: KubeObject, signal: AbortSignal): Promise<TypedSelection[]> => {
    const uid = parent.metadata.uid ?? '';
    const version = versionOf(parent);
    const cached = answers.get(uid);
    if (cached && cached.version === version && cached.expiresAt > host.clock.now()) return cached.selections;
    const call = Symbol(uid);
    inFlight.set(uid, call);
    const selections = await askCustomize(options, parent, signal);
    if (inFlight.get(uid) !== call) return selections; // forgotten (deleted) or overtaken meanwhile
    inFlight.delete(uid);
    answers.set(uid, { version, expiresAt: host.clock.now() + CUSTOMIZE_TTL_MS, selections });
    const key = keyOf(parent);
    parentKeys.set(idOf(key), key);
    index.set(idOf(key), selections.map((s) => s.selection));
    return selections;
  };

  /**
   * Starts every watch the selections need. While one of them is still listing, the parent is tried
   * again shortly (no failure, no event); one that does not fill in time fails the sync, naming it.
   */
  const watchAll = async (selections: TypedSelection[]): Promise<void> => {
    const names = selections.map(({ type }) => resourceTypeKey(type));
    for (const { type } of selections) watches.start(resourceTypeKey(type), type, routes.related(resourceTypeKey(type)));
    if (selections.some(({ selection }) => selection.namespaceSelector)) {
      watches.start(NAMESPACE_SELECTORS, await resolveRelated(host, NAMESPACES.apiVersion, NAMESPACES.resource), routes.namespaces);
      names.push(NAMESPACE_SELECTORS);
    }
    const { filling, stuck } = watches.progress(names);
    if (stuck.length > 0) throw new Error(`the caches of related ${stuck.join(', ')} did not fill within ${RELATED_CACHE_TIMEOUT_MS / 1000} s (can loom list them?)`);
    if (filling.length > 0) throw new RetryAfterError(`waiting for the caches of ${filling.join(', ')} to fill`, { retryAfterMs: CACHE_WAIT_MS });
  };

  return {
    async of(parent, signal) {
      const selections = await selectionsOf(parent, signal);
      await watchAll(selections);
      const objects = new Set<KubeObject>();
      for (const { selection, type } of selections) {
        for (const obj of candidatesOf(selection, watches.store(resourceTypeKey(type))!)) if (selects(selection, obj, namespaceLabels)) objects.add(obj);
      }
      return { objects: [...objects], declaredTypes: selections.map(({ type }) => ({ apiVersion: type.apiVersion, kind: type.kind })) };
    },
    forget(parent) {
      const uid = parent.metadata.uid ?? '';
      answers.delete(uid);
      inFlight.delete(uid);
      const id = idOf(keyOf(parent));
      parentKeys.delete(id);
      index.delete(id);
    },
    stop: () => watches.stop(),
  };
}

/** The watch that tells namespace selectors a namespace's labels (apart from any rule on namespaces). */
const NAMESPACE_SELECTORS = 'namespace-selectors';

/**
 * What a cached customize answer is valid for: the parent's generation, or — for a type without one
 * (a ConfigMap, say) — its content apart from status and bookkeeping.
 */
function versionOf(parent: KubeObject): string {
  if (parent.metadata.generation !== undefined) return `generation ${parent.metadata.generation}`;
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = parent.metadata;
  return fingerprintOf({ ...parent, metadata, status: undefined });
}

/** Asks the customize hook about `parent` and checks its selection rules, each with its type from discovery. */
async function askCustomize(options: Pick<RelatedObjectsOptions<unknown>, 'runner' | 'controller' | 'hook' | 'logger' | 'host'>, parent: KubeObject, signal: AbortSignal): Promise<TypedSelection[]> {
  const raw = await options.runner.call(customizeRequest({ controller: options.controller, parent }), signal);
  const { response, ignoredFields } = decodeCustomizeResponse(raw, responseModeOf(options.hook));
  if (ignoredFields.length > 0) options.logger.debug({ ignoredFields }, 'customize hook response had fields loom ignores');
  return Promise.all(response.relatedResources.map(async (rule) => {
    const type = await resolveRelated(options.host, rule.apiVersion, rule.resource);
    const scope = { version: options.hook.version, parentNamespace: parent.metadata.namespace, namespaced: type.namespaced };
    return { type, selection: relatedSelection(rule, scope) };
  }));
}

/**
 * The informer handlers that wake parents: a related object's change wakes the parents selecting it
 * (before or after the change); a namespace's labels decide what namespace selectors pick in it.
 */
function routingHandlers(index: RelatedIndex, enqueueAll: (parents: Iterable<string>) => void, namespaceLabels: NamespaceLabels) {
  const related = (resourceKey: string): InformerHandler => {
    const parentsOf = (obj: KubeObject) => index.parentsSelecting(resourceKey, obj, namespaceLabels);
    return {
      onAdd: (obj) => enqueueAll(parentsOf(obj)),
      onUpdate: (previous, current) => enqueueAll(new Set([...parentsOf(previous), ...parentsOf(current)])),
      onDelete: (obj) => enqueueAll(parentsOf(obj)),
    };
  };
  const namespaces: InformerHandler = {
    onAdd: (ns) => enqueueAll(index.parentsOfNamespaceChange(undefined, ns.metadata.labels ?? {})),
    onUpdate: (previous, current) => enqueueAll(index.parentsOfNamespaceChange(previous.metadata.labels ?? {}, current.metadata.labels ?? {})),
    onDelete: (ns) => enqueueAll(index.parentsOfNamespaceChange(ns.metadata.labels ?? {}, undefined)),
  };
  return { related, namespaces };
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
