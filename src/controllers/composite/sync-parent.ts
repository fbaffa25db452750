/**
 * One sync of one CompositeController parent — the reconcile (contract §3.2, §4, §5): finalizer,
 * claim (adopt/release), hook, validation of the desired children, child writes, status. Reads come
 * from the caches; the only uncached read is the parent check before an adoption. No child is
 * created, changed or deleted before the hook's answer has been validated, so a failing or garbled
 * hook never deletes a child.
 */
import { decodeCompositeResponse, matchesSelector, compositeRequest, type KubeObject, type LabelSelector, type CompositeHookResponse } from '../../api/index.ts';
import { afterFinalize, decideLifecycle, normaliseDesiredChildren, parentSelector, sanitizeForApply } from '../../core/index.ts';
import { manageChildren } from '../manage-children.ts';
import { errorChain, type ReconcileResult } from '../../engine/index.ts';
import { callHook } from '../call-hook.ts';
import { claimForParent } from './claim-for-parent.ts';
import type { CompositeContext } from './context.ts';
import { writeStatus } from './parent-writes.ts';
import { setFinalizer } from '../set-finalizer.ts';

/** Syncs the parent stored under `key`; a parent that is gone needs nothing. */
export async function syncParent(ctx: CompositeContext, key: string, signal: AbortSignal): Promise<ReconcileResult> {
  const cached = ctx.parents.get(key);
  if (!cached) return {};
  const { spec } = ctx.controller;
  const labelSelector = spec.parentResource.labelSelector;
  const lifecycle = decideLifecycle({
    parent: cached, finalizer: ctx.finalizer, hasFinalizeHook: spec.hooks.finalize !== undefined,
    matchesParentSelector: labelSelector === undefined || matchesSelector(labelSelector, cached.metadata.labels),
  });
  if (lifecycle.hook === 'none') return {};
  // The selector is checked before the finalizer is added: a parent whose selector can never work must
  // not get a finalizer that would hold its deletion forever.
  const selector = parentSelector({ parent: cached, generateSelector: spec.generateSelector });
  let parent = lifecycle.finalizer === 'keep' ? cached : await setFinalizer(ctx, cached, lifecycle.finalizer === 'add');
  const claimed = await claimForParent(ctx, parent, selector);
  const finalizing = lifecycle.hook === 'finalize';
  const response = await callParentHook(ctx, { parent, claimed, finalizing }, signal);
  const desired = desiredChildren(ctx, parent, selector, response.children);
  let manage = lifecycle.manageChildren;
  if (finalizing) {
    const after = afterFinalize({ parent, finalized: response.finalized, manageChildren: manage });
    if (after.removeFinalizer) parent = await setFinalizer(ctx, parent, false);
    manage = after.manageChildren;
  }
  const failures = manage ? await manageChildren({ ...ctx, types: ctx.children }, desired, claimed) : [];
  await writeStatus(ctx, parent, response.status);
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} child write(s) failed: ${failures.map((f) => errorChain(f).join(': ')).join('; ')}`);
  return response.resyncAfterSeconds > 0 ? { requeueAfterMs: response.resyncAfterSeconds * 1000 } : {};
}

interface HookCall {
  parent: KubeObject;
  claimed: KubeObject[];
  finalizing: boolean;
}

function callParentHook(ctx: CompositeContext, call: HookCall, signal: AbortSignal): Promise<CompositeHookResponse> {
  const which = call.finalizing ? 'finalize' : 'sync';
  return callHook({
    which, spec: ctx.controller.spec.hooks[which], runner: ctx.runners[which], logger: ctx.logger, decode: decodeCompositeResponse,
    request: async (version) => compositeRequest({
      controller: ctx.controller.object, parent: call.parent, version, finalizing: call.finalizing,
      children: { objects: call.claimed, declaredTypes: ctx.children.map((c) => c.type) },
      related: await ctx.related?.of(call.parent, signal),
    }),
  }, signal);
}

/** The hook's children, checked and completed; any problem fails the sync before a single write. */
function desiredChildren(ctx: CompositeContext, parent: KubeObject, selector: LabelSelector, children: KubeObject[]): KubeObject[] {
  const result = normaliseDesiredChildren({
    parent, children, selector, generateSelector: ctx.controller.spec.generateSelector,
    declaredTypes: ctx.children.map((c) => ({ apiVersion: c.type.apiVersion, kind: c.type.kind, namespaced: c.type.namespaced })),
  });
  if (!result.ok) throw new Error(`the sync hook's children are invalid: ${result.problems.join('; ')}`);
  return ctx.host.settings.applyStrategy === 'server-side-apply' ? result.children.map(sanitizeForApply) : result.children;
}
