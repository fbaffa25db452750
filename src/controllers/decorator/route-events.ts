/**
 * Which targets a watch event concerns. A target is enqueued while it is ours (matches its rule's
 * selectors, or still carries the decorator's finalizer); an attachment's event goes to the target its
 * controller reference names — only for attachments stamped with this decorator's name, as a
 * decorator never adopts.
 */
import { controllerRefOf, DECORATOR_CONTROLLER_ANNOTATION, groupOf, objectKey, type KubeObject } from '../../api/index.ts';
import { decorates, isSpecOrMetaChange } from '../../core/index.ts';
import type { InformerHandler } from '../../kube/index.ts';
import type { DecoratorContext, TargetType } from './context.ts';
import { targetKey, type TargetKey } from './target-key.ts';

/** True when this decorator handles `target`. */
export function isDecorated(ctx: Pick<DecoratorContext, 'finalizer'>, target: TargetType, obj: KubeObject): boolean {
  return obj.metadata.finalizers?.includes(ctx.finalizer) === true || decorates(target.rule, obj);
}

/** Handler for one target type's informer. */
export function targetHandler(ctx: Pick<DecoratorContext, 'finalizer'>, target: TargetType, enqueue: (key: TargetKey) => void): InformerHandler {
  const route = (obj: KubeObject): void => {
    if (isDecorated(ctx, target, obj)) enqueue(targetKey(target.type, obj));
  };
  return {
    onAdd: route,
    onUpdate: (previous, current) => {
      if (target.rule.ignoreStatusChanges && !isSpecOrMetaChange(previous, current)) return;
      route(current);
    },
    onDelete: route,
  };
}

/** The key of the cached target an attachment belongs to, if it is one of ours. */
function ownerKey(ctx: Pick<DecoratorContext, 'controller' | 'targets'>, attachment: KubeObject): TargetKey | undefined {
  const ref = controllerRefOf(attachment);
  if (!ref || attachment.metadata.annotations?.[DECORATOR_CONTROLLER_ANNOTATION] !== ctx.controller.name) return undefined;
  const target = ctx.targets.find((t) => t.type.kind === ref.kind && groupOf(t.type.apiVersion) === groupOf(ref.apiVersion));
  if (!target) return undefined;
  const owner = target.store.get(objectKey(target.type.namespaced ? attachment.metadata.namespace : undefined, ref.name));
  return owner?.metadata.uid === ref.uid ? targetKey(target.type, owner) : undefined;
}

/** Handler for one attachment type's informer. */
export function attachmentHandler(ctx: Pick<DecoratorContext, 'controller' | 'targets'>, enqueue: (key: TargetKey) => void): InformerHandler {
  const route = (...objs: KubeObject[]): void => {
    const keys = new Set(objs.map((obj) => ownerKey(ctx, obj)).filter((key) => key !== undefined));
    for (const key of keys) enqueue(key);
  };
  return { onAdd: (obj) => route(obj), onUpdate: (previous, current) => route(previous, current), onDelete: (obj) => route(obj) };
}
