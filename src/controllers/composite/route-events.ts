/**
 * Which parents a watch event concerns (docs/concepts.md, "Event routing"). Parents are enqueued when
 * they are ours (match the controller's parent selector, or still carry its finalizer); a child's event
 * goes to the parent its controller reference names, and an orphan's to every parent whose selector
 * could adopt it — found through the parent store's namespace index, not a scan of every parent.
 */
import { controllerRefOf, groupOf, objectKey, type KubeObject } from '../../api/index.ts';
import { matchesSelector, type LabelSelector } from '../../api/label-selector.ts';
import { isSpecOrMetaChange, parentSelector } from '../../core/index.ts';
import type { InformerHandler, ReadonlyObjectStore, ResourceType } from '../../kube/index.ts';

/** What routing needs to know about the controller. */
export interface RoutingContext {
  parentType: ResourceType;
  parents: ReadonlyObjectStore;
  /** `spec.parentResource.labelSelector`; absent = every parent. */
  parentLabelSelector: LabelSelector | undefined;
  finalizer: string;
  generateSelector: boolean;
  ignoreStatusChanges: boolean;
  enqueue(key: string): void;
}

/** True when this controller handles `parent`. */
export function isOurs(ctx: RoutingContext, parent: KubeObject): boolean {
  if (parent.metadata.finalizers?.includes(ctx.finalizer)) return true;
  return ctx.parentLabelSelector === undefined || matchesSelector(ctx.parentLabelSelector, parent.metadata.labels);
}

/** Handler for the parent informer. */
export function parentHandler(ctx: RoutingContext): InformerHandler {
  const enqueue = (parent: KubeObject): void => {
    if (isOurs(ctx, parent)) ctx.enqueue(objectKey(parent.metadata.namespace, parent.metadata.name ?? ''));
  };
  return {
    onAdd: enqueue,
    onUpdate: (previous, current) => {
      if (ctx.ignoreStatusChanges && !isSpecOrMetaChange(previous, current)) return;
      enqueue(current);
    },
    onDelete: enqueue,
  };
}

/** The parent key a child's controller reference points at, if it is a parent of our type. */
function ownerKey(ctx: RoutingContext, child: KubeObject): string | undefined {
  const ref = controllerRefOf(child);
  if (!ref || ref.kind !== ctx.parentType.kind || groupOf(ref.apiVersion) !== groupOf(ctx.parentType.apiVersion)) return undefined;
  const key = objectKey(ctx.parentType.namespaced ? child.metadata.namespace : undefined, ref.name);
  const parent = ctx.parents.get(key);
  return parent?.metadata.uid === ref.uid ? key : undefined;
}

/** Parents in scope whose selector matches an orphan, i.e. that may adopt it. */
function adopters(ctx: RoutingContext, orphan: KubeObject): string[] {
  const candidates = ctx.parentType.namespaced ? ctx.parents.byNamespace(orphan.metadata.namespace ?? '') : ctx.parents.list();
  return candidates.filter((parent) => {
    try {
      return isOurs(ctx, parent) && matchesSelector(parentSelector({ parent, generateSelector: ctx.generateSelector }), orphan.metadata.labels);
    } catch {
      return false; // A parent with an invalid selector adopts nothing; its own sync reports why.
    }
  }).map((parent) => objectKey(parent.metadata.namespace, parent.metadata.name ?? ''));
}

function keysFor(ctx: RoutingContext, child: KubeObject, mayAdopt: boolean): string[] {
  const owner = ownerKey(ctx, child);
  if (owner) return [owner];
  if (controllerRefOf(child) || !mayAdopt || child.metadata.deletionTimestamp) return [];
  return adopters(ctx, child);
}

/** Handler for one child type's informer. */
export function childHandler(ctx: RoutingContext): InformerHandler {
  const route = (keys: Iterable<string>): void => {
    for (const key of new Set(keys)) ctx.enqueue(key);
  };
  return {
    onAdd: (child) => route(keysFor(ctx, child, true)),
    // Both versions count: a released child must wake its former parent, an adopted one its new one.
    onUpdate: (previous, current) => route([...keysFor(ctx, previous, false), ...keysFor(ctx, current, true)]),
    onDelete: (child) => route(keysFor(ctx, child, false)),
  };
}
