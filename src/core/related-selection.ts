/**
 * Related objects (docs/hook-protocol.md, "Customize and related objects"): the customize hook's rules,
 * checked and turned into selections, and the test of whether a selection picks an object. One rule is
 * one selection; an object is related to a parent when any of the parent's selections picks it.
 */
import { matchesSelector, type HookVersion, type KubeObject, type LabelSelector, type RelatedResourceRule } from '../api/index.ts';

/** A checked customize rule, with the parent's scope already applied. */
export interface RelatedSelection {
  /** `apiVersion` and `resource` exactly as the rule names them. */
  apiVersion: string;
  resource: string;
  /** Only objects in this namespace (`''`: only cluster-scoped objects); absent: any namespace. */
  namespace?: string;
  /** Only objects with one of these names; absent: any name. */
  names?: readonly string[];
  /** Only objects whose labels match; absent: any labels. */
  labelSelector?: LabelSelector;
  /** Only objects in a namespace whose labels match. */
  namespaceSelector?: LabelSelector;
}

/** What the rules are checked against. */
export interface RelatedScope {
  /** The hook version whose request carries the related objects. */
  version: HookVersion;
  /** The parent's namespace; absent for a cluster-scoped parent. */
  parentNamespace?: string | undefined;
  /** Whether the rule's resource is namespaced (from discovery). */
  namespaced: boolean;
}

/** A customize rule that breaks the selection rules; the message says which. */
export class RelatedRuleError extends Error {
  override readonly name = 'RelatedRuleError';
}

/** True when a v1 hook of a namespaced parent asks for a namespaced resource: it sees only its own namespace. */
function isConfined(scope: RelatedScope): boolean {
  return scope.version === 'v1' && Boolean(scope.parentNamespace) && scope.namespaced;
}

/** Each check of the selection rules, as "this rule is wrong when…" and why. */
const RULE_CHECKS: readonly { broken: (rule: RelatedResourceRule, scope: RelatedScope) => boolean; why: (rule: RelatedResourceRule, scope: RelatedScope) => string }[] = [
  { broken: (rule) => (rule.names?.length ?? 0) > 0 && Boolean(rule.labelSelector ?? rule.namespaceSelector), why: () => 'names cannot be combined with a selector' },
  { broken: (rule) => Boolean(rule.namespace) && Boolean(rule.namespaceSelector), why: () => 'namespace cannot be combined with namespaceSelector' },
  { broken: (rule, scope) => Boolean(rule.namespaceSelector) && !scope.namespaced, why: () => 'namespaceSelector needs a namespaced resource' },
  {
    broken: (rule, scope) => isConfined(scope) && Boolean(rule.namespaceSelector),
    why: () => 'a v1 hook of a namespaced parent cannot use namespaceSelector (use hook version v2)',
  },
  {
    broken: (rule, scope) => isConfined(scope) && Boolean(rule.namespace) && rule.namespace !== scope.parentNamespace,
    why: (rule, scope) => `a v1 hook of a namespaced parent only sees namespace ${scope.parentNamespace}, not ${rule.namespace} (use hook version v2)`,
  },
];

/**
 * Checks `rule` and returns its selection. A v1 hook of a namespaced parent only sees its own
 * namespace (its object maps are keyed by bare name), so a namespaced rule is confined to it and may
 * not name another; a v2 hook, or any hook of a cluster-scoped parent, may look anywhere.
 */
export function relatedSelection(rule: RelatedResourceRule, scope: RelatedScope): RelatedSelection {
  const failed = RULE_CHECKS.find((check) => check.broken(rule, scope));
  if (failed) throw new RelatedRuleError(`related rule for ${rule.resource}.${rule.apiVersion}: ${failed.why(rule, scope)}`);
  const namespace = isConfined(scope) ? scope.parentNamespace : rule.namespace || undefined;
  return {
    apiVersion: rule.apiVersion, resource: rule.resource,
    ...(namespace === undefined ? {} : { namespace }),
    ...((rule.names?.length ?? 0) > 0 ? { names: rule.names! } : {}),
    ...(rule.labelSelector ? { labelSelector: rule.labelSelector } : {}),
    ...(rule.namespaceSelector ? { namespaceSelector: rule.namespaceSelector } : {}),
  };
}

/** A namespace's labels, or `undefined` when the namespace is unknown. */
export type NamespaceLabels = (namespace: string) => Readonly<Record<string, string>> | undefined;

/**
 * True when `selection` picks `obj` (an object of the selection's resource). An object in a
 * namespace that is not known yet is not picked by a namespace selector; the namespace's arrival
 * routes its parents again.
 */
export function selects(selection: RelatedSelection, obj: KubeObject, namespaceLabels: NamespaceLabels): boolean {
  const namespace = obj.metadata.namespace ?? '';
  if (selection.namespace !== undefined && selection.namespace !== namespace) return false;
  if (selection.names && !selection.names.includes(obj.metadata.name ?? '')) return false;
  if (selection.labelSelector && !matchesSelector(selection.labelSelector, obj.metadata.labels)) return false;
  return selection.namespaceSelector === undefined || inSelectedNamespace(selection.namespaceSelector, namespaceLabels(namespace));
}

function inSelectedNamespace(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  return labels !== undefined && matchesSelector(selector, labels);
}
