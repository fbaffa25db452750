/**
 * The ports of a DecoratorController sync over the cluster: the running controller's caches, hook
 * runners and writers (see sync-ports.ts).
 */
import { decodeDecoratorResponse, decoratorRequest, type KubeObject } from '../../api/index.ts';
import { attachmentAnnotations, decorates, isAttachmentOf, normaliseDesiredChildrenInSlices, whyNotAttachment, type TargetWrites } from '../../core/index.ts';
import { isNotFound } from '../../kube/index.ts';
import { callHook } from '../../sync/call-hook.ts';
import { inTurns, SLICE_CHILDREN } from '../in-turns.ts';
import { manageChildren } from '../manage-children.ts';
import { setFinalizer } from '../set-finalizer.ts';
import type { DecoratorContext } from './context.ts';
import type { DecoratorSyncPorts, TargetCall } from '../../sync/decorator-ports.ts';
import { targetAt, type TargetKey } from './target-key.ts';
import { shardLabels } from '../shard-scope.ts';

/** The attachments of `target`: objects it controls that carry this decorator's annotation. */
function observedAttachments(ctx: DecoratorContext, target: KubeObject): KubeObject[] {
  const uid = target.metadata.uid ?? '';
  return ctx.attachments.flatMap((a) => a.store.byControllerUid(uid).filter((obj) => isAttachmentOf(obj, target, ctx.controller.name)));
}

/** The hook's answer, its attachments checked and completed; any problem fails the sync before a single write. */
async function answer(ctx: DecoratorContext, call: TargetCall, signal: AbortSignal) {
  const which = call.finalizing ? 'finalize' : 'sync';
  const response = await callHook({
    which, spec: ctx.controller.spec.hooks[which], runner: ctx.runners[which], logger: ctx.logger, decode: decodeDecoratorResponse,
    limit: { field: 'attachments', max: ctx.host.settings.maxChildrenPerParent },
    request: async (version) => decoratorRequest({
      controller: ctx.controller.object, object: call.target, version, finalizing: call.finalizing,
      attachments: { objects: call.observed, declaredTypes: ctx.attachments.map((a) => a.type) },
      related: call.related, readiness: await ctx.readiness.judge(call.observed, signal),
    }),
  }, signal);
  const result = await inTurns(normaliseDesiredChildrenInSlices({
    parent: call.target, children: response.attachments, generateSelector: false, annotations: attachmentAnnotations(ctx.controller.name),
    declaredTypes: ctx.attachments.map((a) => ({ apiVersion: a.type.apiVersion, kind: a.type.kind, namespaced: a.type.namespaced })),
    applyStrategy: ctx.host.settings.applyStrategy, maxChildren: ctx.host.settings.maxChildrenPerParent, labels: shardLabels(ctx.host, call.target),
  }, SLICE_CHILDREN));
  if (!result.ok) throw new Error(`the hook's attachments are invalid: ${result.problems.join('; ')}`);
  return { ...response, attachments: result.children };
}

/**
 * Writes what the hook asked of the target, and resolves it as the API server answered the last write
 * (`writes.target` when nothing was written); a target deleted meanwhile needs nothing.
 */
async function writeTarget(ctx: DecoratorContext, writes: TargetWrites): Promise<KubeObject> {
  try {
    let written = writes.target;
    if (writes.writeStatus) {
      written = await ctx.host.writer.replaceStatus(writes.target);
      ctx.host.metrics.applied(ctx.labels, 'status');
    }
    if (!writes.writeObject) return written;
    const { resourceVersion } = written.metadata;
    written = await ctx.host.writer.replace({ ...writes.target, metadata: { ...writes.target.metadata, ...(resourceVersion ? { resourceVersion } : {}) } });
    ctx.host.metrics.applied(ctx.labels, 'update-target');
    return written;
  } catch (err) {
    // A Conflict goes up as is: the engine retries it quietly once the newer target is cached.
    if (isNotFound(err)) return writes.target;
    throw err;
  }
}

/** The ports of `ctx`'s syncs. */
export function livePorts(ctx: DecoratorContext): DecoratorSyncPorts<TargetKey> {
  return {
    target: (key) => {
      const { target, cached } = targetAt(ctx.targets, key);
      return target && cached && { object: cached, selected: decorates(target.rule, cached), statusSubresource: target.type.subresources.includes('status') };
    },
    related: async (target, signal) => ctx.related?.of(target, signal),
    setFinalizer: (target, present) => setFinalizer(ctx, target, present),
    attachments: (target) => observedAttachments(ctx, target),
    answer: (call, signal) => answer(ctx, call, signal),
    writeTarget: (writes) => writeTarget(ctx, writes),
    manageAttachments: (target, desired, observed, stopIf) => {
      const whyNotOurs = (existing: KubeObject) => whyNotAttachment({ target, controllerName: ctx.controller.name, existing });
      // No policies and no order: a decorator ignores loom's child annotations, as Metacontroller does.
      return manageChildren({ ...ctx, types: ctx.attachments, whyNotOurs, stopIf, unordered: true }, desired, observed).then((managed) => managed.failures);
    },
  };
}
