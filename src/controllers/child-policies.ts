/**
 * The lifecycle policies of a CompositeController's children as one sync's plan uses them
 * (docs/ordering-and-readiness.md, "Per-child lifecycle policies"): each child's annotations over its
 * type's `childResources[]` entry, and whether its parent is going.
 */
import type { ChildPolicies, KubeObject } from '../api/index.ts';
import { observedPoliciesOf, recreatesOnImmutableChange, removalActionOf, type PlanPolicies } from '../core/index.ts';
import type { ResourceType } from '../kube/index.ts';

/** A declared child type and its rule. */
interface RuledType {
  rule: ChildPolicies;
  type: Pick<ResourceType, 'apiVersion' | 'kind'>;
}

/** The rule of `obj`'s declared type, if it has one. */
export function ruleOf(types: readonly RuledType[], obj: KubeObject): ChildPolicies | undefined {
  return types.find((t) => t.type.apiVersion === obj.apiVersion && t.type.kind === obj.kind)?.rule;
}

/** The policies the plan of `parent`'s children follows; a parent being deleted releases its `Retain` children. */
export function planPoliciesFor(types: readonly RuledType[], parent: KubeObject): PlanPolicies {
  const going = Boolean(parent.metadata.deletionTimestamp);
  return {
    parentUid: parent.metadata.uid ?? '',
    removalOf: (observed) => removalActionOf(observedPoliciesOf(observed, ruleOf(types, observed)), going),
    recreatesOnImmutable: (desired) => recreatesOnImmutableChange(observedPoliciesOf(desired, ruleOf(types, desired))),
  };
}
