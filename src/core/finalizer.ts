/**
 * The finalizer lifecycle of a CompositeController parent (docs/concepts.md, "Finalizers"): which hook a
 * sync calls, whether the controller's finalizer is added or removed first, and whether children may be
 * touched.
 */
import { compositeFinalizer } from '../api/well-known.ts';
import type { KubeObject } from '../api/object.ts';

/** Finalizers the garbage collector itself works through; loom never fights them. */
export const GC_FINALIZERS: readonly string[] = ['foregroundDeletion', 'orphan'];

/** The finalizer a CompositeController puts on its parents; the exact string Metacontroller uses. */
export const finalizerName = compositeFinalizer;

/** What to do with the controller's finalizer before calling the hook. */
export type FinalizerAction = 'add' | 'remove' | 'keep';

/** What one sync of a parent does. */
export interface LifecycleDecision {
  /**
   * `sync` or `finalize` (request `finalizing: true`); `none` for a parent that neither matches the
   * controller's `parentResource.labelSelector` nor carries its finalizer — it is not this controller's.
   */
  hook: 'sync' | 'finalize' | 'none';
  finalizer: FinalizerAction;
  /** Whether the desired children may be created, updated or deleted after the hook. */
  manageChildren: boolean;
}

/** Inputs of `decideLifecycle`. */
export interface LifecycleInput {
  parent: KubeObject;
  /** This controller's finalizer, from `finalizerName`. */
  finalizer: string;
  /** Whether the controller defines `spec.hooks.finalize`. */
  hasFinalizeHook: boolean;
  /** Whether the parent matches the controller's `parentResource.labelSelector`. */
  matchesParentSelector: boolean;
}

interface Facts {
  terminating: boolean;
  hasOurs: boolean;
  hasGcFinalizer: boolean;
  hasFinalizeHook: boolean;
  matches: boolean;
}

function factsOf(input: LifecycleInput): Facts {
  const finalizers = input.parent.metadata.finalizers ?? [];
  return {
    terminating: Boolean(input.parent.metadata.deletionTimestamp),
    hasOurs: finalizers.includes(input.finalizer),
    hasGcFinalizer: finalizers.some((f) => GC_FINALIZERS.includes(f)),
    hasFinalizeHook: input.hasFinalizeHook,
    matches: input.matchesParentSelector,
  };
}

/** A terminating object accepts no new finalizers, and one we already removed must stay removed. */
function finalizerAction(f: Facts): FinalizerAction {
  if (f.hasFinalizeHook && !f.hasOurs && !f.terminating) return 'add';
  if (!f.hasFinalizeHook && f.hasOurs) return 'remove';
  return 'keep';
}

/**
 * Finalize while our finalizer holds the parent: on deletion, or when the parent opted out of the
 * controller's selector, so the hook can clean up what it added.
 */
function hookFor(f: Facts): LifecycleDecision['hook'] {
  if (!f.matches && !f.hasOurs) return 'none';
  if (f.hasFinalizeHook && f.hasOurs && (f.terminating || !f.matches)) return 'finalize';
  return 'sync';
}

/**
 * While the parent is terminating, children are only managed under our finalizer (otherwise the garbage
 * collector is already deleting them through their owner references) and never against a GC finalizer.
 */
function mayManageChildren(f: Facts, action: FinalizerAction): boolean {
  if (!f.terminating) return true;
  const oursRemains = f.hasOurs && action !== 'remove';
  return oursRemains && !f.hasGcFinalizer;
}

/**
 * Decides one sync of a parent. The finalizer action is carried out before the hook is called, so that
 * the controller can always clean up after anything it later does. A terminating parent without a finalize
 * hook still gets a sync call (for its status) but no child changes.
 */
export function decideLifecycle(input: LifecycleInput): LifecycleDecision {
  const facts = factsOf(input);
  const hook = hookFor(facts);
  if (hook === 'none') return { hook, finalizer: 'keep', manageChildren: false };
  const finalizer = finalizerAction(facts);
  return { hook, finalizer, manageChildren: mayManageChildren(facts, finalizer) };
}

/** Inputs of `afterFinalize`. */
export interface FinalizeOutcomeInput {
  parent: KubeObject;
  /** The finalize response's `finalized`. */
  finalized?: boolean | undefined;
  /** `manageChildren` from the `decideLifecycle` decision that led to the finalize call. */
  manageChildren: boolean;
}

/**
 * After a finalize call: `finalized: true` removes the finalizer, before children are managed. A
 * terminating parent then manages no children: the garbage collector deletes them with the parent. A
 * parent finalized because it opted out of the selector still gets the hook's children applied (usually
 * none, so the claimed ones are deleted). Without `finalized: true` the finalizer stays and the finalize hook
 * is called again on the next sync.
 */
export function afterFinalize(input: FinalizeOutcomeInput): { removeFinalizer: boolean; manageChildren: boolean } {
  const removeFinalizer = input.finalized === true;
  const terminating = Boolean(input.parent.metadata.deletionTimestamp);
  return { removeFinalizer, manageChildren: input.manageChildren && !(removeFinalizer && terminating) };
}
