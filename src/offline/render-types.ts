/**
 * Resource types without a cluster. A running loom asks discovery which kind a controller's
 * `apiVersion` + `resource` names and whether it is namespaced; `loom render` has no API server, so
 * it answers from, in order:
 * 1. CustomResourceDefinitions in the controller's file (a manifest often ships its CRD with it);
 * 2. a table of Kubernetes' built-in types (and loom's own);
 * 3. the objects the user gave (parent, observed, related): an object of that `apiVersion` whose
 *    kind, lower-cased and made plural the regular way, is the resource (`CatSet` → `catsets`).
 * A type none of them names stays unknown; callers say so and carry on without it.
 */
import { groupOf, isRecord, type KubeObject, type ResourceRule } from '../api/index.ts';

/** A resource type as discovery would describe it. */
export interface ResolvedType {
  apiVersion: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}

/** Answers "which kind is this resource?" offline. */
export interface TypeCatalog {
  /** The type `rule` names, or `undefined` when nothing tells. */
  resolve(rule: ResourceRule): ResolvedType | undefined;
}

/** Built-in types by `group/resource` (any version): kind, and `true` when namespaced. */
const BUILT_IN: Readonly<Record<string, readonly [kind: string, namespaced: boolean]>> = {
  '/pods': ['Pod', true],
  '/services': ['Service', true],
  '/configmaps': ['ConfigMap', true],
  '/secrets': ['Secret', true],
  '/serviceaccounts': ['ServiceAccount', true],
  '/persistentvolumeclaims': ['PersistentVolumeClaim', true],
  '/endpoints': ['Endpoints', true],
  '/events': ['Event', true],
  '/limitranges': ['LimitRange', true],
  '/resourcequotas': ['ResourceQuota', true],
  '/replicationcontrollers': ['ReplicationController', true],
  '/podtemplates': ['PodTemplate', true],
  '/namespaces': ['Namespace', false],
  '/nodes': ['Node', false],
  '/persistentvolumes': ['PersistentVolume', false],
  '/bindings': ['Binding', true],
  '/componentstatuses': ['ComponentStatus', false],
  'apps/deployments': ['Deployment', true],
  'apps/statefulsets': ['StatefulSet', true],
  'apps/daemonsets': ['DaemonSet', true],
  'apps/replicasets': ['ReplicaSet', true],
  'apps/controllerrevisions': ['ControllerRevision', true],
  'batch/jobs': ['Job', true],
  'batch/cronjobs': ['CronJob', true],
  'autoscaling/horizontalpodautoscalers': ['HorizontalPodAutoscaler', true],
  'policy/poddisruptionbudgets': ['PodDisruptionBudget', true],
  'networking.k8s.io/ingresses': ['Ingress', true],
  'networking.k8s.io/networkpolicies': ['NetworkPolicy', true],
  'networking.k8s.io/ingressclasses': ['IngressClass', false],
  'networking.k8s.io/ipaddresses': ['IPAddress', false],
  'networking.k8s.io/servicecidrs': ['ServiceCIDR', false],
  'discovery.k8s.io/endpointslices': ['EndpointSlice', true],
  'coordination.k8s.io/leases': ['Lease', true],
  'rbac.authorization.k8s.io/roles': ['Role', true],
  'rbac.authorization.k8s.io/rolebindings': ['RoleBinding', true],
  'rbac.authorization.k8s.io/clusterroles': ['ClusterRole', false],
  'rbac.authorization.k8s.io/clusterrolebindings': ['ClusterRoleBinding', false],
  'storage.k8s.io/storageclasses': ['StorageClass', false],
  'scheduling.k8s.io/priorityclasses': ['PriorityClass', false],
  'apiextensions.k8s.io/customresourcedefinitions': ['CustomResourceDefinition', false],
  'admissionregistration.k8s.io/validatingwebhookconfigurations': ['ValidatingWebhookConfiguration', false],
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': ['MutatingWebhookConfiguration', false],
  'metacontroller.k8s.io/compositecontrollers': ['CompositeController', false],
  'metacontroller.k8s.io/decoratorcontrollers': ['DecoratorController', false],
  'metacontroller.k8s.io/controllerrevisions': ['ControllerRevision', true],
};

/**
 * The groups the table lists in full: Kubernetes (1.34) serves no other resource in them, so a resource
 * of one of them that the table lacks does not exist. Checked against a real API server's discovery
 * in test/builtin-resources.test.ts. Other built-in groups are listed in part, or not at all.
 */
export const FULLY_LISTED_GROUPS: readonly string[] = [
  '', 'apps', 'batch', 'autoscaling', 'policy', 'networking.k8s.io', 'discovery.k8s.io', 'rbac.authorization.k8s.io',
  'scheduling.k8s.io', 'apiextensions.k8s.io', 'metacontroller.k8s.io',
];

/** Every resource of built-in `group` (`''` is the core group), or `undefined` when the table does not list that group in full. */
export function builtInResources(group: string): string[] | undefined {
  if (!FULLY_LISTED_GROUPS.includes(group)) return undefined;
  return Object.keys(BUILT_IN).filter((key) => key.slice(0, key.lastIndexOf('/')) === group).map((key) => key.slice(key.lastIndexOf('/') + 1));
}

/** The kind of every built-in type the table lists. */
export function builtInKinds(): string[] {
  return [...new Set(Object.values(BUILT_IN).map(([kind]) => kind))];
}

/** The plural Kubernetes derives from a kind when a CRD names none: `Policy` → `policies`, `Box` → `boxes`. */
export function regularPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

/** The type `rule` names (only its apiVersion and resource: a customize rule carries selectors too). */
function typeOf(rule: ResourceRule, kind: string, namespaced: boolean): ResolvedType {
  return { apiVersion: rule.apiVersion, resource: rule.resource, kind, namespaced };
}

function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The type a CRD defines for `rule`, if it is that CRD's group, plural and one of its versions. */
function fromCrd(crd: KubeObject, rule: ResourceRule): ResolvedType | undefined {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  if (spec.group !== groupOf(rule.apiVersion) || names.plural !== rule.resource || typeof names.kind !== 'string') return undefined;
  const versions = Array.isArray(spec.versions) ? spec.versions.map((v) => (isRecord(v) ? v.name : undefined)) : [];
  if (!strings(versions).includes(versionOf(rule.apiVersion))) return undefined;
  return typeOf(rule, names.kind, spec.scope !== 'Cluster');
}

function fromTable(rule: ResourceRule): ResolvedType | undefined {
  const entry = BUILT_IN[`${groupOf(rule.apiVersion)}/${rule.resource}`];
  return entry && typeOf(rule, entry[0], entry[1]);
}

/** The type the example objects show; namespaced when any of them has a namespace. */
function fromExamples(objects: readonly KubeObject[], rule: ResourceRule): ResolvedType | undefined {
  const matching = objects.filter((obj) => obj.apiVersion === rule.apiVersion && typeof obj.kind === 'string' && regularPlural(obj.kind) === rule.resource);
  const first = matching[0];
  return first && typeOf(rule, first.kind, matching.some((obj) => Boolean(obj.metadata.namespace)));
}

/** A catalog over the CRDs given with the controller and the objects the user gave. */
export function typeCatalog(input: { crds: readonly KubeObject[]; examples: readonly KubeObject[] }): TypeCatalog {
  return {
    resolve: (rule) => input.crds.map((crd) => fromCrd(crd, rule)).find((t) => t !== undefined) ?? fromTable(rule) ?? fromExamples(input.examples, rule),
  };
}

/**
 * The type of an unknown `rule` as the hook's desired objects show it: the kind of the first desired
 * object of that `apiVersion` whose regular plural is the resource. Namespaced when that object sets a
 * namespace or its parent has one (a namespaced parent's children inherit its namespace).
 */
export function typeFromDesired(rule: ResourceRule, desired: readonly KubeObject[], parent: KubeObject): ResolvedType | undefined {
  const first = desired.find((obj) => obj.apiVersion === rule.apiVersion && typeof obj.kind === 'string' && regularPlural(obj.kind) === rule.resource);
  return first && typeOf(rule, first.kind, Boolean(first.metadata.namespace ?? parent.metadata.namespace));
}

/**
 * Whether the objects `rules` name are namespaced, as far as `crds` or the built-in types tell, for the
 * rule whose kind is `kind`; `undefined` when nothing tells (the examples the user gave are not asked).
 */
export function declaredScope(crds: readonly KubeObject[], rules: readonly ResourceRule[], kind: string): boolean | undefined {
  const declared = typeCatalog({ crds, examples: [] });
  return rules.map((rule) => declared.resolve(rule)).find((type) => type?.kind === kind)?.namespaced;
}
