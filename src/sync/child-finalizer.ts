/**
 * The controller's finalizer held for the children's lifecycle policies (docs/ordering-and-readiness.md,
 * "Per-child lifecycle policies"): a parent with children that need loom at its deletion (`Orphan` or
 * `Retain`, or waves and `dependsOn` under `spec.orderedTeardown`, `core/child-lifecycle.ts`) gets it
 * before the first such child is written and keeps it while such children exist. At its deletion,
 * without a finalize hook (asking no hook) or once the finalize hook has answered `finalized: true`,
 * loom converges toward no children (releasing what must survive, deleting the rest in reverse order)
 * and removes the finalizer once no claimed child needs loom; the garbage collector deletes any other. A parent none of whose children need loom is synced as
 * it always was, and so is a parent deleted with a propagation policy of its own (`orphan`,
 * `foreground`) or one that stopped matching the controller's parent selector.
 */
import { isTerminating, type CompositeHookResponse, type KubeObject, type LabelSelector } from '../api/index.ts';
import { afterFinalize, childNeedsLoomAtDeletion, finalizerForChildren, GC_FINALIZERS, type LifecycleDecision, type TeardownOrder } from '../core/index.ts';
import type { CompositeSyncPorts } from './composite-ports.ts';
import { stopWhenStale } from './stale-writes.ts';

/** What the finalizer steps of one sync know. */
export interface ChildFinalizerContext extends TeardownOrder {
  ports: CompositeSyncPorts;
  lifecycle: LifecycleDecision;
  finalizer: string;
  hasFinalizeHook: boolean;
  /**
   * The parent no longer matches the controller's `parentResource.labelSelector`: the controller lets
   * go of it, and its finalizer goes as it does under Metacontroller, whatever its children need.
   */
  optedOut: boolean;
}

/** What the children are written toward once the hook has answered, and the parent they are written for. */
export interface ChildWritesPlan {
  parent: KubeObject;
  manage: boolean;
  desired: KubeObject[];
}

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
  return objects.some((obj) => childNeedsLoomAtDeletion(obj, ctx.ports.childRule?.(obj), ctx));
}

/** Whether the sync may tear the children down: a terminating parent whose finalizer loom holds without a finalize hook. */
const mayTearDown = (ctx: ChildFinalizerContext, parent: KubeObject): boolean => ctx.lifecycle.finalizer === 'remove' && isTerminating(parent);

/** Where a teardown writes and when it stops. */
export interface TeardownInput {
  key: string;
  selector: LabelSelector;
  signal: AbortSignal;
}

/**
 * A terminating parent whose finalizer loom holds without a finalize hook, while a claimed child needs
 * loom: its children are written toward none (released or deleted by their policies) without asking any
 * hook, whose answer is not needed; a hook that went away with the app it served must not hold the
 * parent forever. Its claim writes nothing (a parent being deleted adopts and releases nothing).
 * Resolves the failed writes, or `undefined` when the sync goes on as usual.
 */
export async function tearDownIfDue(ctx: ChildFinalizerContext, parent: KubeObject, input: TeardownInput): Promise<Error[] | undefined> {
  if (!mayTearDown(ctx, parent)) return undefined;
  const { key, selector, signal } = input;
  const claimed = await ctx.ports.claimChildren(parent, selector);
  if (!tearsDown(ctx, parent, claimed)) return undefined;
  const stopIf = stopWhenStale(parent, () => ctx.ports.parent(key), signal);
  const { failures } = await ctx.ports.manageChildren({ parent, selector, desired: [], claimed, stopIf, signal });
  return failures;
}

/**
 * A terminating parent whose finalizer loom holds without a finalize hook, and none of whose claimed
 * children needs loom: the finalizer goes now, before the hook is called, as it always did, and the
 * garbage collector deletes the children. (Should a child that needs loom have reached the cache since
 * {@link tearDownIfDue} looked, the finalizer stays for the next sync to tear it down.)
 */
export async function finalizerAfterClaim(ctx: ChildFinalizerContext, parent: KubeObject, claimed: readonly KubeObject[]): Promise<KubeObject> {
  if (!mayTearDown(ctx, parent) || tearsDown(ctx, parent, claimed)) return parent;
  return ctx.ports.setFinalizer(parent, false);
}

/** What the sync writes after the hook's answer; adds or removes the finalizer first as the children need. */
export async function finalizerAfterAnswer(
  ctx: ChildFinalizerContext, input: { parent: KubeObject; claimed: readonly KubeObject[]; response: CompositeHookResponse },
): Promise<ChildWritesPlan> {
  const { parent, claimed, response } = input;
  if (ctx.lifecycle.hook === 'finalize') return afterFinalizeHook(ctx, input);
  if (isTerminating(parent)) return { parent, manage: ctx.lifecycle.manageChildren, desired: response.children };
  const action = finalizerForChildren({
    held: (parent.metadata.finalizers ?? []).includes(ctx.finalizer),
    finalizeHookNeedsIt: ctx.hasFinalizeHook,
    childrenNeedIt: !ctx.optedOut && (needLoom(ctx, claimed) || needLoom(ctx, response.children)),
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
