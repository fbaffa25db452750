/**
 * What a child's lifecycle policies (docs/ordering-and-readiness.md, "Per-child lifecycle policies")
 * mean for one sync: what becomes of a claimed child nobody wants any more, whether a child needs loom
 * when its parent is deleted (so the parent must carry loom's finalizer), and whether an update the API
 * server refuses for an immutable field replaces the child. Pure.
 */
import { observedChildPoliciesOf, type ResolvedChildPolicies } from '../api/child-annotations.ts';
import type { ChildPolicies } from '../api/controller-spec.ts';
import { isTerminating, type KubeObject } from '../api/object.ts';
import type { PlanPolicies } from './plan-policies.ts';

/**
 * What becomes of a claimed child that is not desired: deleted, released (the parent's owner
 * reference removed, so it survives), or kept as it is (still owned).
 */
export type RemovalAction = 'delete' | 'release' | 'keep';

/**
 * The policies of an observed child: its annotations over its type's rule, each annotation on its own
 * (`observedChildPoliciesOf`): one edited into something that does not parse leaves its policy to the
 * type's rule, and a deletion policy that does not parse keeps the child (`Retain`), never deletes it.
 */
export function observedPoliciesOf(child: KubeObject, rule: ChildPolicies | undefined): ResolvedChildPolicies {
  return observedChildPoliciesOf(child, rule).value;
}

/** Told of a child whose annotations do not parse (`problems`), so its owner hears why a policy was not followed. */
export type PolicyProblemReport = (child: KubeObject, problems: string[]) => void;

/**
 * `Delete` deletes; `Orphan` releases; `Retain` keeps the child owned while the parent lives and
 * releases it when the parent goes (`parentGoing`), so it survives the garbage collector.
 */
export function removalActionOf(policies: Pick<ResolvedChildPolicies, 'deletionPolicy'>, parentGoing: boolean): RemovalAction {
  switch (policies.deletionPolicy) {
    case 'Orphan':
      return 'release';
    case 'Retain':
      return parentGoing ? 'release' : 'keep';
    default:
      return 'delete';
  }
}

/** How the controller has the children of a deleted parent go (`spec.orderedTeardown`). */
export interface TeardownOrder {
  /** Deleted in reverse order by loom, rather than all at once by the garbage collector. */
  orderedTeardown: boolean;
}

/**
 * Whether the child needs loom when its parent is deleted: it must be released to survive, or, when the
 * controller asks for an ordered teardown, deleted in reverse wave order. The garbage collector deletes
 * every other child as it does without loom; asking costs a finalizer write on every parent with
 * ordered children, so it is not the default.
 */
export function needsLoomAtDeletion(policies: ResolvedChildPolicies, order: TeardownOrder): boolean {
  if (policies.deletionPolicy !== 'Delete') return true;
  return order.orderedTeardown && (policies.wave !== 0 || policies.dependsOn.length > 0);
}

/**
 * Whether observed child `child` needs loom at its parent's deletion ({@link needsLoomAtDeletion}), by
 * its policies over `rule`. A child already terminating whose policy is `Delete` does not: it goes
 * anyway, and one stuck on a finalizer of its own must not keep the parent's forever.
 */
export function childNeedsLoomAtDeletion(child: KubeObject, rule: ChildPolicies | undefined, order: TeardownOrder): boolean {
  const policies = observedPoliciesOf(child, rule);
  if (isTerminating(child) && policies.deletionPolicy === 'Delete') return false;
  return needsLoomAtDeletion(policies, order);
}

/** Whether an in-place update the API server refuses for an immutable field deletes the child, for a later sync to create anew. */
export function recreatesOnImmutableChange(policies: Pick<ResolvedChildPolicies, 'onImmutableChange'>): boolean {
  return policies.onImmutableChange === 'Recreate';
}

/** Inputs of {@link finalizerForChildren}. */
export interface ChildFinalizerInput {
  /** Whether the parent carries the controller's finalizer. */
  held: boolean;
  /** Whether a finalize hook still needs the finalizer (the controller has one, and it has not answered `finalized: true`). */
  finalizeHookNeedsIt: boolean;
  /** Whether some claimed or desired child needs loom when the parent is deleted ({@link needsLoomAtDeletion}). */
  childrenNeedIt: boolean;
}

/**
 * The controller's finalizer held for the children's sake: present while a finalize hook or a child
 * needs it, gone once neither does. It is added before the first child that needs it is written, and
 * the sync removes it once no child needs it any more; a terminating parent cannot take a new one.
 */
export function finalizerForChildren(input: ChildFinalizerInput): 'add' | 'remove' | 'keep' {
  const wanted = input.finalizeHookNeedsIt || input.childrenNeedIt;
  if (wanted === input.held) return 'keep';
  return wanted ? 'add' : 'remove';
}

/**
 * The policies the plan of `parent`'s children follows (`child-plan.ts`), each child's annotations over
 * its type's rule (`ruleOf`); a parent being deleted releases its `Retain` children. A child going whose
 * annotations do not parse is told to `report`.
 */
export function planPoliciesFor(ruleOf: (obj: KubeObject) => ChildPolicies | undefined, parent: KubeObject, report?: PolicyProblemReport): PlanPolicies {
  const going = Boolean(parent.metadata.deletionTimestamp);
  return {
    parentUid: parent.metadata.uid ?? '',
    removalOf: (observed) => {
      const { value, problems } = observedChildPoliciesOf(observed, ruleOf(observed));
      if (problems.length > 0) report?.(observed, problems);
      return removalActionOf(value, going);
    },
    recreatesOnImmutable: (desired) => recreatesOnImmutableChange(observedPoliciesOf(desired, ruleOf(desired))),
  };
}
