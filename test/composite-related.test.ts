/**
 * The customize hook and related objects on the real control plane (docs/hook-protocol.md,
 * "Customize and related objects"): each selection rule in v1 and v2, invalid rules failing the sync
 * with a SyncError, a namespace gaining a label bringing its objects in, and a related object's change
 * waking exactly the parents that select it while customize is asked once per parent generation.
 *
 * JSONata controllers (hook versions v1 and v2 on a namespaced parent, v1 on a cluster-scoped one,
 * where v1 may look beyond one namespace) answer customize with the parent's `spec.rules` and write
 * the keys of the related objects they were given into the parent's status; a webhook controller
 * counts its calls per parent for the routing case.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, RelatedResourceRule } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'related';
const KIND = TEST_PARENT_KINDS.related;
const CLUSTER_KIND = TEST_PARENT_KINDS.clusterRelated;
const PICK = 'related-test/pick';
const TEAM = 'related-test/team';
const GROUP = 'related-test/group';

/** Status `related`: for each related type, the sorted keys of the objects the hook was given. */
const REPORT_RELATED = `{
  "children": [],
  "status": { "related": $merge([{}, $each(related, function($objects, $type) { { $type: [$sort($keys($objects))] } })]) }
}`;

let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let home: string;
let other: string;
let blue: string;
const syncCalls: { parent: string; related: string[] }[] = [];
const customizeCalls: string[] = [];

/** `plural`: the parent type, by default the namespaced one. */
function controller(name: string, hooks: object, mode: string, { ignoreStatusChanges = false, plural = KIND.plural }: { ignoreStatusChanges?: boolean; plural?: string } = {}): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name, labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: plural, labelSelector: { matchLabels: { mode } }, ignoreStatusChanges },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks,
    },
  };
}

const jsonataHooks = (version: 'v1' | 'v2') => ({
  customize: { version, jsonata: { expression: '{ "relatedResources": parent.spec.rules }' } },
  sync: { version, jsonata: { expression: REPORT_RELATED } },
});

async function startCountingHook(): Promise<string> {
  hook = Fastify();
  hook.post('/customize', (req) => {
    const { parent } = req.body as { parent: KubeObject & { spec: { rules: unknown } } };
    customizeCalls.push(parent.metadata.name!);
    return { relatedResources: parent.spec.rules };
  });
  hook.post('/sync', (req) => {
    const { parent, related } = req.body as { parent: KubeObject; related: Record<string, Record<string, KubeObject>> };
    const seen = Object.values(related).flatMap((objects) => Object.values(objects).map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`));
    syncCalls.push({ parent: parent.metadata.name!, related: seen });
    return { children: [], status: { related: seen.length } };
  });
  return hook.listen({ host: '127.0.0.1', port: 0 });
}

const configMap = (namespace: string, name: string, labels: Record<string, string>, data = { v: '1' }) =>
  clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data });

const parent = (name: string, mode: string, rules: RelatedResourceRule[]) =>
  clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace: home, labels: { mode } }, spec: { rules } });

/** A cluster-scoped parent, taken by the v1 controller of that type. */
const clusterParent = (name: string, rules: RelatedResourceRule[]) =>
  clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: CLUSTER_KIND.kind, metadata: { name, labels: { mode: 'v1' } }, spec: { rules } });

/** Where a parent lives: in `home`, or cluster-scoped. */
type Scope = 'namespaced' | 'cluster';

async function relatedStatus(name: string, scope: Scope = 'namespaced'): Promise<Record<string, string[]> | undefined> {
  const ref = scope === 'cluster' ? { kind: CLUSTER_KIND.kind, name } : { kind: KIND.kind, namespace: home, name };
  const p = await clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, ...ref });
  return (p?.status as { related?: Record<string, string[]> } | undefined)?.related;
}

/** Waits until parent `name` reports exactly `expected`. */
const relatedBecomes = (name: string, expected: Record<string, string[]>, scope: Scope = 'namespaced') =>
  eventually(async () => {
    const status = await relatedStatus(name, scope);
    return JSON.stringify(status) === JSON.stringify(expected) ? status : undefined;
  }, `${name} to report ${JSON.stringify(expected)}`);

async function syncErrorMatching(name: string, pattern: RegExp): Promise<string> {
  return eventually(async () => {
    const list = await clients.client.request<{ items: { reason?: string; message?: string; involvedObject: { kind?: string } }[] }>({
      method: 'GET', path: `/api/v1/namespaces/${home}/events`, query: { fieldSelector: `involvedObject.name=${name}` },
    });
    return list.items.find((e) => e.reason === 'SyncError' && e.involvedObject.kind === KIND.kind && pattern.test(e.message ?? ''))?.message;
  }, `a SyncError on ${name} matching ${pattern}`);
}

beforeAll(async () => {
  clients = await testClients();
  const kc = testKubeConfig();
  [home, other, blue] = await Promise.all([createTestNamespace(kc, 'related-home'), createTestNamespace(kc, 'related-other'), createTestNamespace(kc, 'related-blue')]);
  await clients.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: blue, labels: { [TEAM]: 'blue' } } });
  await createParentCrd(clients, KIND);
  await createParentCrd(clients, CLUSTER_KIND);
  await Promise.all([
    configMap(home, 'h1', { [PICK]: 'yes' }), configMap(home, 'h2', { [PICK]: 'no' }),
    configMap(other, 'o1', { [PICK]: 'yes' }), configMap(blue, 'b1', { [PICK]: 'yes' }),
  ]);
  const url = await startCountingHook();
  loom = await startTestLoom(LABEL);
  await clients.apply(controller('related-v1', jsonataHooks('v1'), 'v1'));
  await clients.apply(controller('related-v2', jsonataHooks('v2'), 'v2'));
  await clients.apply(controller('related-count', {
    customize: { version: 'v2', webhook: { url: `${url}/customize` } },
    sync: { version: 'v2', webhook: { url: `${url}/sync` } },
  }, 'count', { ignoreStatusChanges: true }));
  await clients.apply(controller('related-v1-cluster', jsonataHooks('v1'), 'v1', { plural: CLUSTER_KIND.plural }));
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
});

const configMaps = { apiVersion: 'v1', resource: 'configmaps' };
const picked = { matchLabels: { [PICK]: 'yes' } };

describe('customize and related objects', () => {
  it.each([
    ['v2 namespace and names', 'v2-names', () => [{ ...configMaps, namespace: other, names: ['o1'] }], () => ({ 'ConfigMap.v1': [`${other}/o1`] })],
    ['v2 label selector, cluster-wide', 'v2-labels', () => [{ ...configMaps, labelSelector: picked }], () => ({ 'ConfigMap.v1': [`${blue}/b1`, `${home}/h1`, `${other}/o1`].sort() })],
    ['v2 label selector in one namespace', 'v2-labels-ns', () => [{ ...configMaps, namespace: other, labelSelector: picked }], () => ({ 'ConfigMap.v1': [`${other}/o1`] })],
    ['v2 namespace selector', 'v2-ns-selector', () => [{ ...configMaps, namespaceSelector: { matchLabels: { [TEAM]: 'blue' } }, labelSelector: picked }], () => ({ 'ConfigMap.v1': [`${blue}/b1`] })],
    ['v2 cluster-scoped related type', 'v2-namespaces', () => [{ apiVersion: 'v1', resource: 'namespaces', labelSelector: { matchLabels: { [TEAM]: 'blue' } } }], () => ({ 'Namespace.v1': [blue] })],
    ['v2 a rule matching nothing still names its type', 'v2-empty', () => [{ ...configMaps, names: ['missing'] }], () => ({ 'ConfigMap.v1': [] })],
    ['v1 label selector, confined to the parent namespace', 'v1-labels', () => [{ ...configMaps, labelSelector: picked }], () => ({ 'ConfigMap.v1': ['h1'] })],
    ['v1 names in the parent namespace', 'v1-names', () => [{ ...configMaps, names: ['h2'] }], () => ({ 'ConfigMap.v1': ['h2'] })],
  ])('selects by %s', async (_, name, rules, expected) => {
    await parent(name, name.slice(0, 2), rules());
    expect(await relatedBecomes(name, expected())).toEqual(expected());
  });

  // v1 keys objects of a cluster-scoped parent as namespace/name, and lets it look in any namespace.
  it.each([
    ['namespace and names', 'v1c-names', () => [{ ...configMaps, namespace: other, names: ['o1'] }], () => ({ 'ConfigMap.v1': [`${other}/o1`] })],
    ['label selector in one namespace', 'v1c-labels-ns', () => [{ ...configMaps, namespace: other, labelSelector: picked }], () => ({ 'ConfigMap.v1': [`${other}/o1`] })],
    ['namespace selector', 'v1c-ns-selector', () => [{ ...configMaps, namespaceSelector: { matchLabels: { [TEAM]: 'blue' } }, labelSelector: picked }], () => ({ 'ConfigMap.v1': [`${blue}/b1`] })],
    ['label selector, cluster-wide', 'v1c-labels', () => [{ ...configMaps, labelSelector: picked }], () => ({ 'ConfigMap.v1': [`${blue}/b1`, `${home}/h1`, `${other}/o1`].sort() })],
  ])('selects by %s with v1 for a cluster-scoped parent', async (_, name, rules, expected) => {
    await clusterParent(name, rules());
    expect(await relatedBecomes(name, expected(), 'cluster')).toEqual(expected());
  });

  it.each([
    { what: 'v1 names in another namespace', name: 'v1-bad-ns', rules: () => [{ ...configMaps, namespace: other, names: ['o1'] }], error: /only sees namespace .* not related-other/ },
    { what: 'v1 namespace selector', name: 'v1-bad-nssel', rules: () => [{ ...configMaps, namespaceSelector: { matchLabels: { [TEAM]: 'blue' } } }], error: /cannot use namespaceSelector/ },
    { what: 'names with a selector', name: 'v2-bad-names', rules: () => [{ ...configMaps, names: ['o1'], labelSelector: picked }], error: /names cannot be combined with a selector/ },
    { what: 'namespace with a namespace selector', name: 'v2-bad-both', rules: () => [{ ...configMaps, namespace: other, namespaceSelector: {} }], error: /namespace cannot be combined with namespaceSelector/ },
  ])('fails the sync for $what with a SyncError', async ({ name, rules, error }) => {
    await parent(name, name.slice(0, 2), rules());
    expect(await syncErrorMatching(name, error)).toMatch(/^Sync error: related rule for configmaps.v1: /);
    expect(await relatedStatus(name)).toBeUndefined();
  });

  it('brings in the objects of a namespace that gains the selected label', async () => {
    const rules = [{ ...configMaps, namespaceSelector: { matchLabels: { [TEAM]: 'green' } }, labelSelector: picked }];
    await parent('v2-relabel', 'v2', rules);
    await relatedBecomes('v2-relabel', { 'ConfigMap.v1': [] });
    await clients.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: other, labels: { [TEAM]: 'green' } } });
    expect(await relatedBecomes('v2-relabel', { 'ConfigMap.v1': [`${other}/o1`] })).toBeDefined();
  });

  it('wakes only the parents that select a changed object, asking customize once per generation', async () => {
    const group = (value: string) => [{ ...configMaps, namespace: home, labelSelector: { matchLabels: { [GROUP]: value } } }];
    const [firstA, firstB] = await Promise.all([configMap(home, 'ga', { [GROUP]: 'a' }), configMap(home, 'gb', { [GROUP]: 'b' })]);
    await Promise.all([parent('route-1', 'count', group('a')), parent('route-2', 'count', group('a')), parent('route-3', 'count', group('b'))]);
    const saw = (p: string, obj: KubeObject) => syncCalls.some((c) => c.parent === p && c.related.includes(`${obj.metadata.name}@${obj.metadata.resourceVersion}`));
    // A first sync that saw the object each parent selects, not any first sync: one that ran before
    // loom's cache held the object (a loaded machine delivers watch events late) is followed by
    // another when the object arrives, which could come after ga changes and look like a wrong wake.
    const sawAll = () => saw('route-1', firstA) && saw('route-2', firstA) && saw('route-3', firstB);
    await eventually(() => Promise.resolve(sawAll() || undefined), 'a first sync of every routing parent, seeing what it selects');

    const changedA = await configMap(home, 'ga', { [GROUP]: 'a' }, { v: '2' });
    const sinceA = syncCalls.length;
    await eventually(() => Promise.resolve((saw('route-1', changedA) && saw('route-2', changedA)) || undefined), 'route-1 and route-2 to see ga change');
    const changedB = await configMap(home, 'gb', { [GROUP]: 'b' }, { v: '2' });
    await eventually(() => Promise.resolve(saw('route-3', changedB) || undefined), 'route-3 to see gb change');

    const route3After = syncCalls.slice(sinceA).filter((c) => c.parent === 'route-3');
    // route-3 was woken by gb's change only: every sync it had since ga changed already saw gb's new version.
    expect(route3After.length).toBeGreaterThan(0);
    expect(route3After.every((c) => c.related.includes(`gb@${changedB.metadata.resourceVersion}`))).toBe(true);
    expect(['route-1', 'route-2', 'route-3'].map((p) => customizeCalls.filter((c) => c === p).length)).toEqual([1, 1, 1]);
  });
});
