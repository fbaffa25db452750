/**
 * One sync of one DecoratorController target (docs/concepts.md, "DecoratorController writes";
 * docs/hook-protocol.md, "DecoratorController requests"): finalizer, the target's attachments, hook,
 * validation of the desired attachments, the target's labels, annotations and status, then the
 * attachment writes. Reads come from the caches. Nothing is written before the hook's answer has been
 * validated, so a failing or garbled hook changes nothing.
 */
import { decodeDecoratorResponse, decoratorRequest, type DecoratorHookResponse, type KubeObject, type TypedObjects } from '../../api/index.ts';
import {
  afterFinalize, attachmentAnnotations, decideLifecycle, decorates, isAttachmentOf, normaliseDesiredChildrenInSlices, planTargetWrites, whyNotAttachment, type TargetWrites,
} from '../../core/index.ts';
import type { ReconcileResult } from '../../engine/index.ts';
import { callHook } from '../call-hook.ts';
import { isNotFound } from '../../kube/index.ts';
import { manageChildren } from '../manage-children.ts';
import { setFinalizer } from '../set-finalizer.ts';
import { writeFailures } from '../write-failures.ts';
import { inTurns, SLICE_CHILDREN } from '../in-turns.ts';
import type { DecoratorContext } from './context.ts';
import { targetAt, type TargetKey } from './target-key.ts';

/** Syncs the target queued under `key`; a target that is gone needs nothing. */
export async function syncTarget(ctx: DecoratorContext, key: TargetKey, signal: AbortSignal): Promise<ReconcileResult> {
  const { target, cached } = targetAt(ctx.targets, key);
  if (!target || !cached) return {};
  const lifecycle = decideLifecycle({
    parent: cached, finalizer: ctx.finalizer, hasFinalizeHook: ctx.controller.spec.hooks.finalize !== undefined,
    matchesParentSelector: decorates(target.rule, cached),
  });
  if (lifecycle.hook === 'none') return {};
  // Related objects first: a customize hook that fails or answers garbage must leave nothing written.
  const related = await ctx.related?.of(cached, signal);
  const obj = lifecycle.finalizer === 'keep' ? cached : await setFinalizer(ctx, cached, lifecycle.finalizer === 'add');
  const observed = observedAttachments(ctx, obj);
  const finalizing = lifecycle.hook === 'finalize';
  const response = await callTargetHook(ctx, { target: obj, observed, finalizing, related }, signal);
  const desired = await desiredAttachments(ctx, obj, response.attachments);
  const after = finalizing ? afterFinalize({ parent: obj, finalized: response.finalized, manageChildren: lifecycle.manageChildren }) : { removeFinalizer: false, manageChildren: lifecycle.manageChildren };
  await writeTarget(ctx, planTargetWrites(obj, response, {
    finalizer: ctx.finalizer, removeFinalizer: after.removeFinalizer, statusSubresource: target.type.subresources.includes('status'),
  }));
  const whyNotOurs = (existing: KubeObject) => whyNotAttachment({ target: obj, controllerName: ctx.controller.name, existing });
  const failures = after.manageChildren ? await manageChildren({ ...ctx, types: ctx.attachments, whyNotOurs }, desired, observed) : [];
  if (failures.length > 0) throw writeFailures(failures, 'attachment');
  return response.resyncAfterSeconds > 0 ? { requeueAfterMs: response.resyncAfterSeconds * 1000 } : {};
}

/** The attachments of `target`: objects it controls that carry this decorator's annotation. */
function observedAttachments(ctx: DecoratorContext, target: KubeObject): KubeObject[] {
  const uid = target.metadata.uid ?? '';
  return ctx.attachments.flatMap((a) => a.store.byControllerUid(uid).filter((obj) => isAttachmentOf(obj, target, ctx.controller.name)));
}

interface HookCall {
  target: KubeObject;
  observed: KubeObject[];
  finalizing: boolean;
  related: TypedObjects | undefined;
}

function callTargetHook(ctx: DecoratorContext, call: HookCall, signal: AbortSignal): Promise<DecoratorHookResponse> {
  const which = call.finalizing ? 'finalize' : 'sync';
  return callHook({
    which, spec: ctx.controller.spec.hooks[which], runner: ctx.runners[which], logger: ctx.logger, decode: decodeDecoratorResponse,
    limit: { field: 'attachments', max: ctx.host.settings.maxChildrenPerParent },
    request: (version) => Promise.resolve(decoratorRequest({
      controller: ctx.controller.object, object: call.target, version, finalizing: call.finalizing,
      attachments: { objects: call.observed, declaredTypes: ctx.attachments.map((a) => a.type) },
      related: call.related,
    })),
  }, signal);
}

/** The hook's attachments, checked and completed; any problem fails the sync before a single write. */
async function desiredAttachments(ctx: DecoratorContext, target: KubeObject, attachments: KubeObject[]): Promise<KubeObject[]> {
  const result = await inTurns(normaliseDesiredChildrenInSlices({
    parent: target, children: attachments, generateSelector: false, annotations: attachmentAnnotations(ctx.controller.name),
    declaredTypes: ctx.attachments.map((a) => ({ apiVersion: a.type.apiVersion, kind: a.type.kind, namespaced: a.type.namespaced })),
    applyStrategy: ctx.host.settings.applyStrategy, maxChildren: ctx.host.settings.maxChildrenPerParent,
  }, SLICE_CHILDREN));
  if (!result.ok) throw new Error(`the hook's attachments are invalid: ${result.problems.join('; ')}`);
  return result.children;
}

/** Writes what the hook asked of the target; a target deleted meanwhile needs nothing. */
async function writeTarget(ctx: DecoratorContext, writes: TargetWrites): Promise<void> {
  try {
    let resourceVersion = writes.target.metadata.resourceVersion;
    if (writes.writeStatus) {
      resourceVersion = (await ctx.host.writer.replaceStatus(writes.target)).metadata.resourceVersion;
      ctx.host.metrics.applied(ctx.labels, 'status');
    }
    if (!writes.writeObject) return;
    await ctx.host.writer.replace({ ...writes.target, metadata: { ...writes.target.metadata, ...(resourceVersion ? { resourceVersion } : {}) } });
    ctx.host.metrics.applied(ctx.labels, 'update-target');
  } catch (err) {
    // A Conflict goes up as is: the engine retries it quietly once the newer target is cached.
    if (isNotFound(err)) return;
    throw err;
  }
}
