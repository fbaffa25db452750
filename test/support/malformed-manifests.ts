/**
 * The malformed controller manifests of `controller-manifests-malformed.test.ts`: a valid manifest of
 * each kind, and one row per case saying how to break it and what the user should see.
 */
import type { KubeObject } from '../../src/api/index.ts';
import { withField } from '../../src/api/testdata/load.test-support.ts';
import { TEST_GROUP, TEST_PARENT_KINDS, type ParentKind } from './test-crd.ts';

/** The label of the test's controllers, and the parent type they name. */
export const LABEL = 'malformed';
export const PARENT: ParentKind = { plural: 'malformeds', kind: 'Malformed' };
export const GROUP_VERSION = 'metacontroller.k8s.io/v1alpha1';

/** One ConfigMap per parent. */
const ONE_CHILD = '{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-child" }, "data": { "from": parent.metadata.name } }] }';

/** A controller manifest. */
export type Manifest = KubeObject & { spec: Record<string, unknown> };
/** CompositeController or DecoratorController. */
export type Base = 'cc' | 'dc';

/**
 * A valid manifest of each kind, its parents told apart by the `case` label: controllers that parse
 * never claim each other's parents, so none of them waits on another.
 */
export function base(kind: Base, name: string): Manifest {
  const metadata = { name, labels: { 'loom-test': LABEL } };
  const selector = { matchLabels: { case: name } };
  if (kind === 'cc') {
    return {
      apiVersion: GROUP_VERSION, kind: 'CompositeController', metadata,
      spec: {
        generateSelector: true,
        parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: PARENT.plural, labelSelector: selector },
        childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
        hooks: { sync: { jsonata: { expression: ONE_CHILD } } },
      },
    };
  }
  return {
    apiVersion: GROUP_VERSION, kind: 'DecoratorController', metadata,
    spec: {
      resources: [{ apiVersion: `${TEST_GROUP}/v1`, resource: PARENT.plural, labelSelector: selector }],
      attachments: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { jsonata: { expression: '{ "attachments": [] }' } } },
    },
  };
}

/** What the user sees. */
export type Expect =
  /** The API server refuses the apply; its message names the field. */
  | { by: 'api' }
  /** loom takes the object and sets Ready=False with this reason, naming the field. */
  | { by: 'loom'; reason: string }
  /** Accepted on purpose (the row says why): Ready=True. */
  | { by: 'accepted' }
  /** Runs, but other than the spec says: Ready=True with reason StartedWithWarnings, naming the field. */
  | { by: 'warned' };

/** One case: how to break the valid manifest, and what the user should see. */
export interface Row {
  description: string;
  kind: Base;
  /** Changes the valid manifest into the malformed one. */
  mutate: (m: Manifest) => Manifest;
  /** A substring of the field path the user is told about. */
  path: string;
  expect: Expect;
}

const row = (kind: Base) => (description: string, mutate: Row['mutate'], path: string, expected: Expect): Row =>
  ({ description, kind, mutate, path, expect: expected });
const cc = row('cc');
const dc = row('dc');

/** Sets each dotted path (`spec.childResources[0].resource`) to its value; `undefined` removes it. */
export const set = (fields: Record<string, unknown>) => (m: Manifest): Manifest =>
  Object.entries(fields).reduce<Manifest>((doc, [path, value]) => withField(doc, path, value) as Manifest, m);

/**
 * Gives a row that parses but cannot start a parent type of its own (a built-in one: the controller
 * fails before it watches anything). loom re-queues every controller of a parent type when one of them
 * fails to start, so two such rows sharing a type would restart each other without end (the known gap
 * at the end of controller-manifests-malformed.test.ts).
 */
const alone = (resource: string, mutate: Row['mutate']) => (m: Manifest): Manifest =>
  mutate(set({ 'spec.parentResource.apiVersion': 'v1', 'spec.parentResource.resource': resource })(m));
/** Sets the parent label selector, keeping the `case` label so that it claims only its own parents. */
const selector = (extra: { matchLabels?: Record<string, string>; matchExpressions?: object[] }) => (m: Manifest): Manifest =>
  set({ 'spec.parentResource.labelSelector': { ...extra, matchLabels: { case: m.metadata.name!, ...extra.matchLabels } } })(m);

const API: Expect = { by: 'api' };
const INVALID: Expect = { by: 'loom', reason: 'InvalidSpec' };
const CREATE_ERROR: Expect = { by: 'loom', reason: 'CreateError' };
const COMPILE_ERROR: Expect = { by: 'loom', reason: 'CompileError' };
const ACCEPTED: Expect = { by: 'accepted' };
const WARNED: Expect = { by: 'warned' };

/** `depth` levels of `{ "a": … }` around a string. */
const nested = (depth: number): unknown => (depth === 0 ? 'bottom' : { a: nested(depth - 1) });
/** `depth` levels of `[…]` around a string. */
const nestedArrays = (depth: number): unknown => (depth === 0 ? 'bottom' : [nestedArrays(depth - 1)]);
const MEGABYTE = 1024 * 1024;

/** Every case, in the order they are reported. */
export const ROWS: Row[] = [
  // The parent rule.
  cc('parentResource missing', set({ 'spec.parentResource': undefined }), 'spec.parentResource', API),
  cc('parentResource empty', set({ 'spec.parentResource': {} }), 'spec.parentResource.apiVersion', API),
  cc('parentResource a string', set({ 'spec.parentResource': PARENT.plural }), 'spec.parentResource', API),
  cc('parent resource empty', set({ 'spec.parentResource.resource': '' }), 'spec.parentResource.resource', INVALID),
  cc('parent resource a number', set({ 'spec.parentResource.resource': 7 }), 'spec.parentResource.resource', API),
  cc('parent apiVersion with three parts', set({ 'spec.parentResource.apiVersion': `${TEST_GROUP}/v1/extra` }), 'spec.parentResource.apiVersion', INVALID),
  cc('parent resource with a control character', set({ 'spec.parentResource.resource': 'malformeds\u0007' }), 'spec.parentResource.resource', INVALID),
  cc('parent resource in capitals', set({ 'spec.parentResource.resource': 'Malformeds' }), 'spec.parentResource.resource', INVALID),
  cc('parent resource discovery does not know (retried with backoff)', set({ 'spec.parentResource.resource': 'nonexistents' }), 'spec.parentResource.resource', CREATE_ERROR),
  // Label selectors.
  cc('selector operator unknown', selector({ matchExpressions: [{ key: 'tier', operator: 'Near' }] }), 'spec.parentResource.labelSelector.matchExpressions[0].operator', INVALID),
  cc('selector In without values', selector({ matchExpressions: [{ key: 'tier', operator: 'In' }] }), 'spec.parentResource.labelSelector.matchExpressions[0].values', INVALID),
  cc('selector Exists with values', selector({ matchExpressions: [{ key: 'tier', operator: 'Exists', values: ['a'] }] }), 'spec.parentResource.labelSelector.matchExpressions[0].values', INVALID),
  cc('selector label value a list', set({ 'spec.parentResource.labelSelector.matchLabels.tier': ['a'] }), 'spec.parentResource.labelSelector.matchLabels.tier', API),
  cc('selector label key with a space and unicode', selector({ matchLabels: { 'tier ключ': 'a' } }), 'spec.parentResource.labelSelector.matchLabels["tier ключ"]', INVALID),
  cc('selector label value with a newline', selector({ matchLabels: { tier: 'a\nb' } }), 'spec.parentResource.labelSelector.matchLabels.tier', INVALID),
  cc('selector that contradicts itself', selector({ matchExpressions: [{ key: 'case', operator: 'DoesNotExist' }] }), 'spec.parentResource.labelSelector', INVALID),
  // Wrong types and numbers.
  cc('childResources an object', set({ 'spec.childResources': { apiVersion: 'v1', resource: 'configmaps' } }), 'spec.childResources', API),
  cc('hooks an array', set({ 'spec.hooks': [{ sync: {} }] }), 'spec.hooks', API),
  cc('hooks missing', set({ 'spec.hooks': undefined }), 'spec.hooks', INVALID),
  cc('generateSelector a string', set({ 'spec.generateSelector': 'true' }), 'spec.generateSelector', API),
  cc('resyncPeriodSeconds beyond int32', set({ 'spec.resyncPeriodSeconds': 2 ** 40 }), 'spec.resyncPeriodSeconds', INVALID),
  cc('resyncPeriodSeconds fractional', set({ 'spec.resyncPeriodSeconds': 1.5 }), 'spec.resyncPeriodSeconds', API),
  cc('resyncPeriodSeconds negative (raised to 1s, as Metacontroller does)', set({ 'spec.resyncPeriodSeconds': -5 }), 'spec.resyncPeriodSeconds', WARNED),
  cc('parent type without a status subresource (synced, its status never written)', set({ 'spec.parentResource.resource': TEST_PARENT_KINDS.statusless.plural }), 'spec.parentResource.resource', WARNED),
  cc('unknown updateStrategy method', set({ 'spec.childResources[0].updateStrategy.method': 'Rolling' }), 'spec.childResources[0].updateStrategy.method', API),
  cc('status check without type', set({ 'spec.childResources[0].updateStrategy.statusChecks': { conditions: [{ status: 'True' }] } }), 'spec.childResources[0].updateStrategy.statusChecks.conditions[0].type', API),
  // Child rules.
  cc('child apiVersion with a space', set({ 'spec.childResources[0].apiVersion': 'apps /v1' }), 'spec.childResources[0].apiVersion', INVALID),
  cc('child apiVersion with an empty group', set({ 'spec.childResources[0].apiVersion': '/v1' }), 'spec.childResources[0].apiVersion', INVALID),
  cc('child resource discovery does not know (retried with backoff)', alone('secrets', set({ 'spec.childResources[0].resource': 'configmapz' })), 'spec.childResources[0].resource', CREATE_ERROR),
  cc('child resource named twice', set({ 'spec.childResources[1]': { apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'Recreate' } } }), 'spec.childResources[1]', INVALID),
  // loom's ordering, readiness and child policy fields (docs/ordering-and-readiness.md).
  cc('every ordering, readiness and policy field set (accepted)', set({
    'spec.childResources[0].wave': -1, 'spec.childResources[0].readyWhen': '$exists(data)', 'spec.childResources[0].deletionPolicy': 'Retain',
    'spec.childResources[0].onImmutableChange': 'Recreate', 'spec.childResources[0].adopt': 'Never', 'spec.readyCondition': true,
  }), '', ACCEPTED),
  cc('child deletionPolicy unknown', set({ 'spec.childResources[0].deletionPolicy': 'Keep' }), 'spec.childResources[0].deletionPolicy', API),
  cc('child adopt in the wrong case', set({ 'spec.childResources[0].adopt': 'never' }), 'spec.childResources[0].adopt', API),
  cc('child wave fractional', set({ 'spec.childResources[0].wave': 1.5 }), 'spec.childResources[0].wave', API),
  cc('child wave wider than an annotation can name', set({ 'spec.childResources[0].wave': 1_000_000_000 }), 'spec.childResources[0].wave', API),
  cc('child readyWhen empty', set({ 'spec.childResources[0].readyWhen': '' }), 'spec.childResources[0].readyWhen', API),
  cc('child readyWhen only white space', set({ 'spec.childResources[0].readyWhen': ' \n ' }), 'spec.childResources[0].readyWhen', INVALID),
  cc('readyCondition a string', set({ 'spec.readyCondition': 'true' }), 'spec.readyCondition', API),
  // Hooks.
  cc('webhook url not a URL', set({ 'spec.hooks.sync': { webhook: { url: 'hooks/sync' } } }), 'spec.hooks.sync.webhook.url', INVALID),
  cc('webhook url with ftp://', set({ 'spec.hooks.sync': { webhook: { url: 'ftp://hooks.example/sync' } } }), 'spec.hooks.sync.webhook.url', INVALID),
  cc('webhook service protocol gopher', set({ 'spec.hooks.sync': { webhook: { service: { name: 'h', namespace: 'n', protocol: 'gopher' }, path: '/sync' } } }), 'spec.hooks.sync.webhook.service.protocol', INVALID),
  cc('webhook with no url, service or path', set({ 'spec.hooks.sync': { webhook: { timeout: '5s' } } }), 'spec.hooks.sync.webhook', INVALID),
  cc('webhook service without name', set({ 'spec.hooks.sync': { webhook: { service: { namespace: 'n' }, path: '/sync' } } }), 'spec.hooks.sync.webhook.service.name', API),
  cc('webhook service port 0', set({ 'spec.hooks.sync': { webhook: { service: { name: 'h', namespace: 'n', port: 0 }, path: '/sync' } } }), 'spec.hooks.sync.webhook.service.port', INVALID),
  cc('webhook service path without a leading slash', set({ 'spec.hooks.sync': { webhook: { service: { name: 'h', namespace: 'n' }, path: 'sync' } } }), 'spec.hooks.sync.webhook.path', INVALID),
  cc('webhook timeout negative (the default 10s is used)', set({ 'spec.hooks.sync': { webhook: { url: 'http://h.n/sync', timeout: '-5s' } } }), 'spec.hooks.sync.webhook.timeout', WARNED),
  cc('no sync hook beside a finalize hook (every sync of a live parent fails)', set({ 'spec.hooks': { finalize: { jsonata: { expression: '{ "finalized": true }' } } } }), 'spec.hooks.sync', WARNED),
  cc('no hook at all', set({ 'spec.hooks': {} }), 'spec.hooks.sync', INVALID),
  cc('webhook timeout "soon"', set({ 'spec.hooks.sync': { webhook: { url: 'http://h.n/sync', timeout: 'soon' } } }), 'spec.hooks.sync.webhook.timeout', API),
  cc('etag cacheTimeoutSeconds negative', set({ 'spec.hooks.sync': { webhook: { url: 'http://h.n/sync', etag: { enabled: true, cacheTimeoutSeconds: -1 } } } }), 'spec.hooks.sync.webhook.etag.cacheTimeoutSeconds', INVALID),
  cc('etag cacheTimeoutSeconds a string', set({ 'spec.hooks.sync': { webhook: { url: 'http://h.n/sync', etag: { enabled: true, cacheTimeoutSeconds: '60s' } } } }), 'spec.hooks.sync.webhook.etag.cacheTimeoutSeconds', API),
  cc('hook version v3', set({ 'spec.hooks.sync.version': 'v3' }), 'spec.hooks.sync.version', API),
  cc('both webhook and jsonata', set({ 'spec.hooks.sync.webhook': { url: 'http://h.n/sync' } }), 'spec.hooks.sync', INVALID),
  cc('neither webhook nor jsonata', set({ 'spec.hooks.sync': {} }), 'spec.hooks.sync', INVALID),
  cc('misspelt webhook field', set({ 'spec.hooks.sync': { webook: { url: 'http://h.n/sync' } } }), 'spec.hooks.sync.webook', API),
  cc('authorization of type Basic', set({ 'spec.hooks.sync': { webhook: { url: 'https://h.n/sync', authorization: { type: 'Basic', secretRef: { name: 's', namespace: 'n', key: 'k' } } } } }), 'spec.hooks.sync.webhook.authorization.type', INVALID),
  cc('customize hook with a bad url', set({ 'spec.hooks.customize': { webhook: { url: 'not a url' } } }), 'spec.hooks.customize.webhook.url', INVALID),
  cc('finalize hook with an empty expression', set({ 'spec.hooks.finalize': { jsonata: { expression: '' } } }), 'spec.hooks.finalize.jsonata.expression', INVALID),
  // JSONata.
  cc('JSONata syntax error', alone('services', set({ 'spec.hooks.sync.jsonata.expression': '{ "children": [ parent.metadata.name & ] }' })), 'spec.hooks.sync.jsonata.expression', COMPILE_ERROR),
  cc('JSONata timeout 0s', set({ 'spec.hooks.sync.jsonata.timeout': '0s' }), 'spec.hooks.sync.jsonata.timeout', INVALID),
  cc('JSONata timeout 31s', set({ 'spec.hooks.sync.jsonata.timeout': '31s' }), 'spec.hooks.sync.jsonata.timeout', INVALID),
  cc('JSONata timeout "soon"', set({ 'spec.hooks.sync.jsonata.timeout': 'soon' }), 'spec.hooks.sync.jsonata.timeout', API),
  cc('JSONata configMapRef without key', set({ 'spec.hooks.sync.jsonata': { configMapRef: { name: 'c', namespace: 'n' } } }), 'spec.hooks.sync.jsonata.configMapRef.key', API),
  cc('JSONata expression and configMapRef', set({ 'spec.hooks.sync.jsonata.configMapRef': { name: 'c', namespace: 'n', key: 'k' } }), 'spec.hooks.sync.jsonata', INVALID),
  cc('a 1 MB expression that compiles (accepted)', set({ 'spec.hooks.sync.jsonata.expression': `{ "children": [], "status": { "pad": "${'x'.repeat(MEGABYTE)}" } }` }), '', ACCEPTED),
  cc('a 1 MB expression of open brackets', alone('serviceaccounts', set({ 'spec.hooks.sync.jsonata.expression': '['.repeat(MEGABYTE) })), 'spec.hooks.sync.jsonata.expression', COMPILE_ERROR),
  cc('a 1 MB expression ending in a 1 MB bad token', alone('persistentvolumeclaims', set({ 'spec.hooks.sync.jsonata.expression': `{ "children": [] } ${'y'.repeat(MEGABYTE)}` })), 'spec.hooks.sync.jsonata.expression', COMPILE_ERROR),
  // Revision history.
  cc('revisionHistory fieldPaths a string', set({ 'spec.parentResource.revisionHistory.fieldPaths': 'spec' }), 'spec.parentResource.revisionHistory.fieldPaths', API),
  cc('revisionHistory fieldPaths that are not paths', set({ 'spec.parentResource.revisionHistory.fieldPaths': ['spec', 'spec..replicas'] }), 'spec.parentResource.revisionHistory.fieldPaths[1]', INVALID),
  // Garbage and names.
  cc('deeply nested garbage where a string goes', set({ 'spec.childResources[0].updateStrategy.method': nested(100) }), 'spec.childResources[0].updateStrategy.method', API),
  cc('deeply nested arrays where a rule goes', set({ 'spec.childResources': nestedArrays(100) }), 'spec.childResources[0]', API),
  cc('name with unicode', set({ 'metadata.name': 'wïdget-controller' }), 'metadata.name', API),
  cc('name with a control character', set({ 'metadata.name': 'widget\u0000controller' }), 'metadata.name', API),
  cc('name of 300 characters', set({ 'metadata.name': 'n'.repeat(300) }), 'metadata.name', API),
  // DecoratorController.
  dc('decorator resources missing', set({ 'spec.resources': undefined }), 'spec.resources', API),
  dc('decorator resources empty', set({ 'spec.resources': [] }), 'spec.resources', INVALID),
  dc('decorator naming one type twice with conflicting selectors', (m) => set({ 'spec.resources[1]': { ...(m.spec.resources as object[])[0], labelSelector: { matchLabels: { case: 'other' } } } })(m), 'spec.resources[1]', INVALID),
  dc('decorator annotation selector NotIn without values', set({ 'spec.resources[0].annotationSelector': { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] } }), 'spec.resources[0].annotationSelector.matchExpressions[0].values', INVALID),
  dc('decorator annotation selector that contradicts itself', set({ 'spec.resources[0].annotationSelector': { matchAnnotations: { a: 'x' }, matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] } }), 'spec.resources[0].annotationSelector', INVALID),
  dc('decorator attachment with an unknown method', set({ 'spec.attachments[0].updateStrategy': { method: 'Replace' } }), 'spec.attachments[0].updateStrategy.method', API),
  dc('decorator attachment apiVersion not a version', set({ 'spec.attachments[0].apiVersion': 'v1 beta' }), 'spec.attachments[0].apiVersion', INVALID),
  dc('decorator customize hook with a negative timeout', set({ 'spec.hooks.customize': { jsonata: { expression: '{}', timeout: '-1s' } } }), 'spec.hooks.customize.jsonata.timeout', INVALID),
  dc('decorator with a customize hook only', set({ 'spec.hooks': { customize: { jsonata: { expression: '{ "relatedResources": [] }' } } } }), 'spec.hooks.sync', INVALID),
  dc('decorator finalize hook with neither kind', set({ 'spec.hooks.finalize': { version: 'v2' } }), 'spec.hooks.finalize', INVALID),
  dc('decorator endpointConfigs without host', set({ 'spec.endpointConfigs': [{ authorization: { secretRef: { name: 's', namespace: 'n', key: 'k' } } }] }), 'spec.endpointConfigs[0].host', API),
];
