/**
 * A misspelt resource in a controller's rules (`resource: websits`) makes loom wait for discovery to
 * learn a resource that never comes; `loom validate` says so before, offline, but only where it knows
 * a group's resources: from the CRDs among the validated files, or for a built-in group the type table
 * lists in full. The CRDs given may be only some of their group's, so for a CRD group only a resource
 * near one they define is reported; for a built-in group, any resource it does not serve (only a
 * warning when none is near: the table may be older than the cluster).
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

/**
 * What is wrong with the resource `rule` names, or `undefined` when it exists or nothing tells: a
 * problem when a known resource is near (a typo), a warning when only a built-in group's table says
 * it is missing (a newer Kubernetes than the table may serve it).
 */
function unknownResource(rule: ResourceRule, crds: readonly KubeObject[]): { message: string; certain: boolean } | undefined {
  const builtIn = builtInResources(groupOf(rule.apiVersion));
  const known = [...crdPlurals(crds, groupOf(rule.apiVersion)), ...(builtIn ?? [])];
  if (known.includes(rule.resource)) return undefined;
  const meant = closestMatch(rule.resource, known);
  const missing = `no resource "${rule.resource}" in ${rule.apiVersion}`;
  if (meant !== undefined) return { message: `${missing}; did you mean "${meant}"?`, certain: true };
  if (builtIn === undefined) return undefined;
  return { message: `${missing} as far as loom's table of built-in types knows (a newer Kubernetes may serve it)`, certain: false };
}

/** A problem (or warning) for each rule of `spec` that names a resource its group does not have (see the module comment). */
export function resourceNameChecks(spec: NamedResources, crds: readonly KubeObject[]): { problems: FieldProblem[]; warnings: FieldProblem[] } {
  const found: { problems: FieldProblem[]; warnings: FieldProblem[] } = { problems: [], warnings: [] };
  for (const { path, rule } of rulesOf(spec)) {
    const unknown = unknownResource(rule, crds);
    if (unknown) (unknown.certain ? found.problems : found.warnings).push({ path: `${path}.resource`, message: unknown.message });
  }
  return found;
}
