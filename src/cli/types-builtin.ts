/**
 * Kubernetes' built-in kinds as `loom types` writes them: every top-level field, so that a misspelt
 * one in a desired object is an error, but nested objects (a Pod's `spec`, a Deployment's `status`)
 * only as `Record<string, unknown>`. The generated file must type-check with nothing but
 * `kube-loom-sdk`, so it cannot borrow the full API types of `@kubernetes/client-node`; the maps and
 * scalars hooks write most (ConfigMap `data`, Secret `stringData`, RBAC rules and references) are typed.
 */
import { groupOf } from '../api/index.ts';
import { jsDoc } from './types-schema.ts';
import { objectInterface, type ObjectField, type ObjectType } from './types-object.ts';

/** Field name (`?` when optional) → TypeScript type. */
type Fields = Readonly<Record<string, string>>;

const LOOSE = 'Record<string, unknown>';
const STRING_MAP = 'Record<string, string>';

/** Most kinds: a desired state and an observed one. */
const SPEC_AND_STATUS: Fields = { 'spec?': LOOSE, 'status?': LOOSE };

const POLICY_RULES = '{ apiGroups?: string[]; resources?: string[]; verbs: string[]; resourceNames?: string[]; nonResourceURLs?: string[] }[]';
const BINDING: Fields = {
  'subjects?': '{ kind: string; name: string; namespace?: string; apiGroup?: string }[]',
  roleRef: '{ apiGroup: string; kind: string; name: string }',
};
const WEBHOOKS: Fields = { 'webhooks?': `${LOOSE}[]` };

/** The kinds whose top-level fields are not `spec` and `status`, by `group/Kind` (`/Kind` for the core group). */
const FIELDS: Readonly<Record<string, Fields>> = {
  '/ConfigMap': { 'data?': STRING_MAP, 'binaryData?': STRING_MAP, 'immutable?': 'boolean' },
  '/Secret': { 'data?': STRING_MAP, 'stringData?': STRING_MAP, 'type?': 'string', 'immutable?': 'boolean' },
  '/ServiceAccount': {
    'secrets?': `${LOOSE}[]`, 'imagePullSecrets?': '{ name?: string }[]', 'automountServiceAccountToken?': 'boolean',
  },
  '/Endpoints': { 'subsets?': `${LOOSE}[]` },
  '/Event': {
    involvedObject: LOOSE, 'reason?': 'string', 'message?': 'string', 'type?': 'string', 'source?': LOOSE, 'count?': 'number',
    'firstTimestamp?': 'string', 'lastTimestamp?': 'string', 'eventTime?': 'string', 'series?': LOOSE, 'action?': 'string',
    'related?': LOOSE, 'reportingComponent?': 'string', 'reportingInstance?': 'string',
  },
  '/PodTemplate': { 'template?': LOOSE },
  '/LimitRange': { 'spec?': LOOSE },
  'apps/ControllerRevision': { 'data?': 'unknown', revision: 'number' },
  'networking.k8s.io/NetworkPolicy': { 'spec?': LOOSE },
  'networking.k8s.io/IngressClass': { 'spec?': LOOSE },
  'discovery.k8s.io/EndpointSlice': { addressType: 'string', endpoints: `${LOOSE}[]`, 'ports?': `${LOOSE}[]` },
  'coordination.k8s.io/Lease': { 'spec?': LOOSE },
  'rbac.authorization.k8s.io/Role': { 'rules?': POLICY_RULES },
  'rbac.authorization.k8s.io/ClusterRole': { 'rules?': POLICY_RULES, 'aggregationRule?': LOOSE },
  'rbac.authorization.k8s.io/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/ClusterRoleBinding': BINDING,
  'storage.k8s.io/StorageClass': {
    provisioner: 'string', 'parameters?': STRING_MAP, 'reclaimPolicy?': 'string', 'mountOptions?': 'string[]',
    'allowVolumeExpansion?': 'boolean', 'volumeBindingMode?': 'string', 'allowedTopologies?': `${LOOSE}[]`,
  },
  'scheduling.k8s.io/PriorityClass': { value: 'number', 'globalDefault?': 'boolean', 'description?': 'string', 'preemptionPolicy?': 'string' },
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': WEBHOOKS,
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': WEBHOOKS,
  'metacontroller.k8s.io/ControllerRevision': { 'parentPatch?': LOOSE, 'children?': '{ apiGroup: string; kind: string; names: string[] }[]' },
};

function fieldsOf(fields: Fields): ObjectField[] {
  return Object.entries(fields).map(([key, type]) => ({ name: key.replace(/\?$/, ''), type, required: !key.endsWith('?') }));
}

/** The generated type of the built-in `kind` of `apiVersion` (the caller knows it is built in). */
export function builtInType(apiVersion: string, kind: string): ObjectType {
  const type = { apiVersion, kind, name: kind };
  const fields = fieldsOf(FIELDS[`${groupOf(apiVersion)}/${kind}`] ?? SPEC_AND_STATUS);
  const doc = jsDoc(`\`${kind}\` of \`${apiVersion}\`, a Kubernetes built-in kind: its top-level fields; nested objects loosely.`, undefined, '');
  return { ...type, declarations: [objectInterface(type, doc, fields)] };
}
