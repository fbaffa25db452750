/**
 * Reading the observed objects of a request without caring which hook version keyed them: `v1`
 * keys objects by `name` under a namespaced parent, `v2` always by `namespace/name` (see
 * {@link ObservedObjects}). Type keys are `<Kind>.<apiVersion>`, e.g. `ConfigMap.v1`.
 */
import { compareStrings } from '../api/index.ts';
import type { KubeObject, ObjectReadiness, ObservedObjects, ReadinessMap } from './types.ts';

/** A sync or finalize request of either controller kind, as far as the lookups need it. */
export type ObservedRequest<Types extends string = string> =
  | { parent: KubeObject; children: ObservedObjects<Types>; related: ObservedObjects; readiness?: ReadinessMap<Types> }
  | { object: KubeObject; attachments: ObservedObjects<Types>; related: ObservedObjects; readiness?: ReadinessMap<Types> };

/** The objects of one type, ordered by key so a handler's output does not depend on map order. */
function objectsOf(map: Partial<Record<string, Record<string, KubeObject>>>, type: string): KubeObject[] {
  const group = map[type] ?? {};
  return Object.keys(group).sort(compareStrings).map((key) => group[key]!);
}

/** The observed children of one type (`[]` when there are none), ordered by key. */
export function childrenOf<Types extends string>(request: { children: ObservedObjects<Types> }, type: NoInfer<Types>): KubeObject[] {
  return objectsOf(request.children, type);
}

/** The observed attachments of one type (DecoratorController), ordered by key. */
export function attachmentsOf<Types extends string>(request: { attachments: ObservedObjects<Types> }, type: NoInfer<Types>): KubeObject[] {
  return objectsOf(request.attachments, type);
}

/** The related objects of one type (selected by the customize hook), ordered by key. */
export function relatedOf<Types extends string>(request: { related: ObservedObjects<Types> }, type: NoInfer<Types>): KubeObject[] {
  return objectsOf(request.related, type);
}

/** The namespace of the parent (composite) or target (decorator); `undefined` when cluster-scoped. */
function parentNamespaceOf(request: ObservedRequest): string | undefined {
  const parent = 'parent' in request ? request.parent : request.object;
  return parent.metadata.namespace || undefined;
}

/** Where to find one entry in a map of a request for a parent in `parentNamespace`. */
interface Lookup<T> {
  map: Partial<Record<string, Record<string, T>>>;
  parentNamespace: string | undefined;
  type: string;
  name: string;
  namespace: string | undefined;
}

/**
 * Tries the `v2` key (`namespace/name`) and then, for an object in the parent's own namespace or a
 * cluster-scoped one, the bare `name` (`v1` under a namespaced parent; cluster-scoped objects).
 */
function find<T>({ map, parentNamespace, type, name, namespace }: Lookup<T>): T | undefined {
  const group = map[type];
  if (group === undefined) return undefined;
  const ns = namespace ?? parentNamespace;
  if (!ns) return group[name];
  return group[`${ns}/${name}`] ?? (ns === parentNamespace ? group[name] : undefined);
}

/**
 * One observed child (composite) or attachment (decorator), or `undefined` when it does not exist
 * (yet). `namespace` defaults to the parent's; leave it out for a cluster-scoped object too. Works
 * for `v1` and `v2` requests alike.
 */
export function observedChild<Types extends string>(request: ObservedRequest<Types>, type: NoInfer<Types>, name: string, namespace?: string): KubeObject | undefined {
  const map = 'children' in request ? request.children : request.attachments;
  return find({ map, parentNamespace: parentNamespaceOf(request), type, name, namespace });
}

/** One related object, looked up like {@link observedChild}. */
export function observedRelated(request: ObservedRequest, type: string, name: string, namespace?: string): KubeObject | undefined {
  return find({ map: request.related, parentNamespace: parentNamespaceOf(request), type, name, namespace });
}

/**
 * The readiness loom judged one observed child (attachment) to have, looked up like
 * {@link observedChild}: `{status, message}`, where only `status: 'Current'` is ready. `undefined` when
 * the request has no such child, or no `readiness` at all (Metacontroller does not send it): a hook
 * that may run under either should treat that as "cannot tell".
 *
 * @example `observedReadiness(request, 'Job.batch/v1', 'migrate')?.status === 'Current'`
 */
export function observedReadiness<Types extends string>(request: ObservedRequest<Types>, type: NoInfer<Types>, name: string, namespace?: string): ObjectReadiness | undefined {
  return find({ map: request.readiness ?? {}, parentNamespace: parentNamespaceOf(request), type, name, namespace });
}
