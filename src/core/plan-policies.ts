/**
 * What the children's lifecycle policies (docs/ordering-and-readiness.md, "Per-child lifecycle
 * policies") make of a child plan (`child-plan.ts`): what becomes of an observed child nobody wants any
 * more (deleted, released or kept), and whether an in-place update refused for an immutable field
 * recreates the child. Pure.
 */
import { isTerminating, type KubeObject } from '../api/object.ts';
import type { RemovalAction } from './child-lifecycle.ts';
import type {
  ApplyUpdateDecision, ChildRef, DeleteDecision, MergedUpdateDecision, ReleaseDecision, SkipDecision,
} from './child-plan.ts';
import { policyReleasedChild } from './policy-release.ts';

/**
 * With `onImmutableChange: Recreate`: when the API server refuses the update for an immutable field,
 * the child of this UID is deleted (UID precondition) and a later sync creates it anew.
 */
export interface RecreateOnImmutable {
  uid: string | undefined;
  /** The desired child, which must pass a dry-run create before the old one is deleted. */
  desired: KubeObject;
}

/** What the lifecycle policies of the parent's children ask of a plan (`child-lifecycle.ts`). */
export interface PlanPolicies {
  /** The UID of the parent, whose owner references a release removes. */
  parentUid: string;
  /** What becomes of observed child `observed` when it is not desired. */
  removalOf: (observed: KubeObject) => RemovalAction;
  /** Whether an update of `desired` refused for an immutable field recreates it. */
  recreatesOnImmutable: (desired: KubeObject) => boolean;
}

/** Observed child `observed` (identity `child`) that is not desired: deleted (or released or kept, by its policy), unless it is already going. */
export function removalOf(observed: KubeObject, child: ChildRef, policies: PlanPolicies | undefined): DeleteDecision | ReleaseDecision | SkipDecision {
  if (isTerminating(observed)) return { action: 'skip', child, reason: 'terminating' };
  const removal = policies?.removalOf(observed) ?? 'delete';
  if (removal === 'keep') return { action: 'skip', child, reason: 'retain' };
  if (removal === 'delete') return { action: 'delete', child, uid: observed.metadata.uid };
  const object = policyReleasedChild(observed, policies!.parentUid);
  return object ? { action: 'release', child, object } : { action: 'skip', child, reason: 'retain' };
}

/** An in-place update, marked to recreate the child on an immutable-field refusal when its policy says so. */
export function inPlace<U extends MergedUpdateDecision | ApplyUpdateDecision>(observed: KubeObject, desired: KubeObject, update: U, policies: PlanPolicies | undefined): U {
  if (!policies?.recreatesOnImmutable(desired)) return update;
  return { ...update, recreateIfImmutable: { uid: observed.metadata.uid, desired } };
}
