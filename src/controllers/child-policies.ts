/**
 * The rule of a CompositeController's child type (its `childResources[]` entry), whose lifecycle
 * policies a child's annotations override (docs/ordering-and-readiness.md, "Per-child lifecycle policies").
 */
import type { ChildPolicies, KubeObject } from '../api/index.ts';
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
