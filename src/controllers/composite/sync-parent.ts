/**
 * One sync of one CompositeController parent — the reconcile (docs/architecture.md,
 * "One sync of a parent"): finalizer, claim (adopt/release), hook, validation of the desired children,
 * child writes, status. Reads come from the caches; the only uncached reads are the parent check before
 * an adoption and, when a create finds a child's name taken, the read of the object holding it. No child
 * is created, changed or deleted before the hook's answer has been validated, so a failing or garbled
 * hook never deletes a child.
 */
import { matchesSelector, type CompositeHookResponse, type KubeObject } from '../../api/index.ts';
import { afterFinalize, decideLifecycle, parentSelector, whyNotChild, type LifecycleDecision } from '../../core/index.ts';
import { manageChildren } from '../manage-children.ts';
import type { ReconcileResult } from '../../engine/index.ts';
import { claimForParent } from './claim-for-parent.ts';
import { validatedAnswer, type ParentCall } from './parent-hook.ts';
import { rollingAnswer } from './rolling-sync.ts';
import type { CompositeContext } from './context.ts';
import { writeStatus } from './parent-writes.ts';
import { setFinalizer } from '../set-finalizer.ts';
import { writeFailures } from '../write-failures.ts';

/** Syncs the parent stored under `key`; a parent that is gone needs nothing. */
export async function syncParent(ctx: CompositeContext, key: string, signal: AbortSignal): Promise<ReconcileResult> {
  const cached = ctx.parents.get(key);
  if (!cached) return {};
  const { spec } = ctx.controller;
  const lifecycle = lifecycleOf(ctx, cached);
  if (lifecycle.hook === 'none') return {};
  // Related objects first: a customize hook that fails or answers garbage must leave nothing written.
  const related = await ctx.related?.of(cached, signal);
  // The selector is checked before the finalizer is added: a parent whose selector can never work must
  // not get a finalizer that would hold its deletion forever.
  const selector = parentSelector({ parent: cached, generateSelector: spec.generateSelector });
  let parent = lifecycle.finalizer === 'keep' ? cached : await setFinalizer(ctx, cached, lifecycle.finalizer === 'add');
  const claimed = await claimForParent(ctx, parent, selector, ctx.children);
  const finalizing = lifecycle.hook === 'finalize';
  const response = await answer(ctx, { parent, claimed, finalizing, selector, related }, signal);
  const desired = response.children;
  let manage = lifecycle.manageChildren;
  if (finalizing) {
    const after = afterFinalize({ parent, finalized: response.finalized, manageChildren: manage });
    if (after.removeFinalizer) parent = await setFinalizer(ctx, parent, false);
    manage = after.manageChildren;
  }
  const whyNotOurs = (existing: KubeObject) => whyNotChild({ parent, selector, existing });
  const failures = manage ? await manageChildren({ ...ctx, types: ctx.children, whyNotOurs }, desired, claimed) : [];
  await writeStatus(ctx, parent, response.status, failures.length === 0);
  if (failures.length > 0) throw writeFailures(failures, 'child');
  return response.resyncAfterSeconds > 0 ? { requeueAfterMs: response.resyncAfterSeconds * 1000 } : {};
}

/** What this sync does with the parent's finalizer, hook and children. */
function lifecycleOf(ctx: CompositeContext, parent: KubeObject): LifecycleDecision {
  const { spec } = ctx.controller;
  const labelSelector = spec.parentResource.labelSelector;
  return decideLifecycle({
    parent, finalizer: ctx.finalizer, hasFinalizeHook: spec.hooks.finalize !== undefined,
    matchesParentSelector: labelSelector === undefined || matchesSelector(labelSelector, parent.metadata.labels),
  });
}

/**
 * The hook's validated answer: one call, or one per revision while a child type rolls — unless the
 * parent is going away without a finalize call: then the garbage collector, not a rollout, deals
 * with the children.
 */
function answer(ctx: CompositeContext, call: ParentCall, signal: AbortSignal): Promise<CompositeHookResponse> {
  const rolls = ctx.revisions !== undefined && (call.finalizing || !call.parent.metadata.deletionTimestamp);
  return rolls ? rollingAnswer(ctx, call, signal) : validatedAnswer(ctx, call, signal);
}
