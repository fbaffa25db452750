/**
 * A misspelt resource in a controller's rules (`resource: websits`) makes loom wait for discovery to
 * learn a resource that never comes; `loom validate` says so before, offline, but only where it knows
 * a group's resources: from the CRDs among the validated files, or for a built-in group the type table
 * lists in full. The CRDs given may be only some of their group's, so for a CRD group only a resource
 * near one they define is reported; for a built-in group, any resource it does not serve.
 */
import { closestMatch, groupOf, isRecord, type FieldProblem, type KubeObject, type ResourceRule } from '../api/index.ts';
import { builtInResources } from '../offline/render-types.ts';

/** The rules of a CompositeController or DecoratorController spec, as far as they name resources. */
export interface NamedResources {
  parentResource?: ResourceRule;
  childResources?: readonly ResourceRule[];
  resources?: readonly ResourceRule[];
  attachments?: readonly ResourceRule[];
}

const RULE_LISTS = ['childResources', 'resources', 'attachments'] as const;

/** Each rule of `spec` with the field path that names it, in the spec's order. */
function rulesOf(spec: NamedResources): { path: string; rule: ResourceRule }[] {
  const parent = spec.parentResource ? [{ path: 'spec.parentResource', rule: spec.parentResource }] : [];
  return [...parent, ...RULE_LISTS.flatMap((field) => (spec[field] ?? []).map((rule, i) => ({ path: `spec.${field}[${i}]`, rule })))];
}

/** The plurals the CRDs among the files define in `group`. */
function crdPlurals(crds: readonly KubeObject[], group: string): string[] {
  return crds.flatMap((crd) => {
    const spec = isRecord(crd.spec) ? crd.spec : {};
    const plural = isRecord(spec.names) ? spec.names.plural : undefined;
    return spec.group === group && typeof plural === 'string' ? [plural] : [];
  });
}

/** What is wrong with the resource `rule` names, or `undefined` when it exists or nothing tells. */
function unknownResource(rule: ResourceRule, crds: readonly KubeObject[]): string | undefined {
  const builtIn = builtInResources(groupOf(rule.apiVersion));
  const known = [...crdPlurals(crds, groupOf(rule.apiVersion)), ...(builtIn ?? [])];
  if (known.includes(rule.resource)) return undefined;
  const meant = closestMatch(rule.resource, known);
  if (meant === undefined && builtIn === undefined) return undefined;
  return `no resource "${rule.resource}" in ${rule.apiVersion}${meant === undefined ? '' : `; did you mean "${meant}"?`}`;
}

/** A problem for each rule of `spec` that names a resource its group does not have (see the module comment). */
export function resourceNameChecks(spec: NamedResources, crds: readonly KubeObject[]): { problems: FieldProblem[]; warnings: FieldProblem[] } {
  const problems = rulesOf(spec).flatMap(({ path, rule }) => {
    const message = unknownResource(rule, crds);
    return message === undefined ? [] : [{ path: `${path}.resource`, message }];
  });
  return { problems, warnings: [] };
}
