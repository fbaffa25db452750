/**
 * The controller's finalizer held for the children's lifecycle policies (docs/ordering-and-readiness.md,
 * "Per-child lifecycle policies"): a parent with children that need loom at its deletion (`Orphan` or
 * `Retain`, or waves and `dependsOn`, `core/child-lifecycle.ts`) gets it before the first such child is
 * written and keeps it while such children exist. At its deletion, without a finalize hook or once the
 * finalize hook has answered `finalized: true`, loom converges toward no children (releasing what must
 * survive, deleting the rest) and removes the finalizer once no claimed child needs loom; the garbage
 * collector deletes any other. A parent none of whose children need loom is synced as it always was, and
 * so is a parent deleted with a propagation policy of its own (`orphan`, `foreground`).
 */
import type { CompositeHookResponse, KubeObject } from '../api/index.ts';
import { afterFinalize, finalizerForChildren, GC_FINALIZERS, needsLoomAtDeletion, observedPoliciesOf, type LifecycleDecision } from '../core/index.ts';
import type { CompositeSyncPorts } from './composite-ports.ts';

/** What the finalizer steps of one sync know. */
export interface ChildFinalizerContext {
  ports: CompositeSyncPorts;
  lifecycle: LifecycleDecision;
  finalizer: string;
  hasFinalizeHook: boolean;
}

/** After the claim: the parent as it is now, and whether the sync tears its children down. */
export interface AfterClaim {
  parent: KubeObject;
  teardown: boolean;
}

/** What the children are written toward once the hook has answered, and the parent they are written for. */
export interface ChildWritesPlan {
  parent: KubeObject;
  manage: boolean;
  desired: KubeObject[];
}

const isTerminating = (obj: KubeObject): boolean => Boolean(obj.metadata.deletionTimestamp);

/**
 * Whether loom tears the children of a parent being deleted down itself. Not when the deletion asked the
 * garbage collector for a propagation of its own (`orphan`, `foregroundDeletion`): the user's choice
 * wins, as it always did.
 */
function tearsDown(ctx: ChildFinalizerContext, parent: KubeObject, claimed: readonly KubeObject[]): boolean {
  const gc = (parent.metadata.finalizers ?? []).some((f) => GC_FINALIZERS.includes(f));
  return isTerminating(parent) && !gc && needLoom(ctx, claimed);
}

/** Whether some child of `objects` needs loom at the parent's deletion. */
function needLoom(ctx: ChildFinalizerContext, objects: readonly KubeObject[]): boolean {
  return objects.some((obj) => needsLoomAtDeletion(observedPoliciesOf(obj, ctx.ports.childRule?.(obj))));
}

/**
 * A terminating parent whose finalizer loom holds without a finalize hook: torn down while a claimed
 * child needs loom; otherwise the finalizer goes now, before the hook is called, as it always did, and
 * the garbage collector deletes the children.
 */
export async function finalizerAfterClaim(ctx: ChildFinalizerContext, parent: KubeObject, claimed: readonly KubeObject[]): Promise<AfterClaim> {
  if (ctx.lifecycle.finalizer !== 'remove' || !isTerminating(parent)) return { parent, teardown: false };
  if (tearsDown(ctx, parent, claimed)) return { parent, teardown: true };
  return { parent: await ctx.ports.setFinalizer(parent, false), teardown: false };
}

/** What the sync writes after the hook's answer; adds or removes the finalizer first as the children need. */
export async function finalizerAfterAnswer(
  ctx: ChildFinalizerContext, input: { parent: KubeObject; claimed: readonly KubeObject[]; response: CompositeHookResponse; teardown: boolean },
): Promise<ChildWritesPlan> {
  const { parent, claimed, response } = input;
  if (input.teardown) return { parent, manage: true, desired: [] };
  if (ctx.lifecycle.hook === 'finalize') return afterFinalizeHook(ctx, input);
  if (isTerminating(parent)) return { parent, manage: ctx.lifecycle.manageChildren, desired: response.children };
  const action = finalizerForChildren({
    held: (parent.metadata.finalizers ?? []).includes(ctx.finalizer),
    finalizeHookNeedsIt: ctx.hasFinalizeHook,
    childrenNeedIt: needLoom(ctx, claimed) || needLoom(ctx, response.children),
  });
  const written = action === 'keep' ? parent : await ctx.ports.setFinalizer(parent, action === 'add');
  return { parent: written, manage: ctx.lifecycle.manageChildren, desired: response.children };
}

/**
 * After a finalize call: `finalized: true` removes the finalizer, unless the parent is being deleted and
 * a claimed child still needs loom: then those children are torn down first, and a later sync (the
 * finalize hook answering again) removes it.
 */
async function afterFinalizeHook(ctx: ChildFinalizerContext, input: { parent: KubeObject; claimed: readonly KubeObject[]; response: CompositeHookResponse }): Promise<ChildWritesPlan> {
  const { claimed, response } = input;
  const after = afterFinalize({ parent: input.parent, finalized: response.finalized, manageChildren: ctx.lifecycle.manageChildren });
  if (!after.removeFinalizer) return { parent: input.parent, manage: after.manageChildren, desired: response.children };
  if (tearsDown(ctx, input.parent, claimed)) return { parent: input.parent, manage: true, desired: [] };
  const parent = await ctx.ports.setFinalizer(input.parent, false);
  return { parent, manage: after.manageChildren, desired: response.children };
}
