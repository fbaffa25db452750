/**
 * Switching from Metacontroller v4.17.2 to loom on the same objects. Children are first written as
 * Metacontroller leaves them — through the real API server under its field manager, `metacontroller`:
 * by its dynamic apply (a POST recorded as an `Update`, with its last-applied annotation, which holds
 * no owner reference) or by its server-side apply (an `Apply`) — then loom starts on the same parents.
 *
 * What must hold, in both of loom's apply strategies: nothing is deleted or recreated (the children
 * keep their UIDs), later parent edits reach the children, a field dropped from the desired state is
 * removed from the child from the first sync on, and under server-side apply the fields are loom's
 * alone afterwards (no `metacontroller` entry left in managedFields, no last-applied annotation).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROLLER_UID_LABEL, DECORATOR_CONTROLLER_ANNOTATION, type KubeObject } from '../src/api/index.ts';
import { controllerRefFor, withLastApplied } from '../src/core/index.ts';
import { createRestClient } from '../src/kube/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'migration';
const KIND = TEST_PARENT_KINDS.migration;
const METACONTROLLER = 'metacontroller';

/** The hook: one ConfigMap per parent holding the parent's `spec.data`. */
const SYNC = '{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-cm" }, "data": parent.spec.data }] }';

let clients: TestClients;
let namespace: string;
const hosts: TestLoom[] = [];

const controller = (name: string, strategy: string): KubeObject => ({
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name, labels: { 'loom-test': `${LABEL}-${strategy}` } },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { strategy } } },
    childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
    hooks: { sync: { jsonata: { expression: SYNC } } },
  },
});

const configMap = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const managersOf = (obj: KubeObject) => ((obj.metadata.managedFields ?? []) as { manager?: string; operation?: string }[]).map((e) => `${e.manager}/${e.operation}`);

const decorator: KubeObject = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController', metadata: { name: 'migration-decorator', labels: { 'loom-test': `${LABEL}-ssa` } },
  spec: {
    resources: [{ apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { strategy: 'decorated' } } }],
    attachments: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
    hooks: { sync: { jsonata: { expression: '{ "attachments": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": object.metadata.name & "-cm" }, "data": object.spec.data }] }' } } },
  },
};

/**
 * The child Metacontroller makes of the hook's answer: a CompositeController's child gets the label
 * generateSelector selects by, a DecoratorController's attachment the annotation naming the decorator.
 */
function desiredChild(parent: KubeObject, data: Record<string, string>): KubeObject {
  const stamp = parent.metadata.labels?.strategy === 'decorated'
    ? { annotations: { [DECORATOR_CONTROLLER_ANNOTATION]: String(decorator.metadata.name) } }
    : { labels: { [CONTROLLER_UID_LABEL]: parent.metadata.uid ?? '' } };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-cm`, namespace, ...stamp }, data };
}

/**
 * Writes the child as Metacontroller does. Dynamic apply: the last-applied annotation records the
 * child before the controller reference is added, then a POST. Server-side apply: the child with the
 * controller reference, applied with force.
 */
async function writeAsMetacontroller(parent: KubeObject, mode: 'dynamic-apply' | 'server-side-apply', data: Record<string, string>): Promise<KubeObject> {
  const client = createRestClient({ kubeConfig: testKubeConfig() });
  const owned = { ...desiredChild(parent, data) };
  owned.metadata = { ...owned.metadata, ownerReferences: [controllerRefFor(parent)] };
  if (mode === 'dynamic-apply') {
    return client.request<KubeObject>({ method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, query: { fieldManager: METACONTROLLER }, body: withLastApplied(owned) });
  }
  return client.request<KubeObject>({
    method: 'PATCH', path: `/api/v1/namespaces/${namespace}/configmaps/${owned.metadata.name}`, query: { fieldManager: METACONTROLLER, force: true },
    contentType: 'application/apply-patch+yaml', body: owned,
  });
}

/** A parent and its child exactly as Metacontroller left them; loom is not running yet. */
async function takenOverParent(name: string, strategy: string, mode: 'dynamic-apply' | 'server-side-apply'): Promise<{ parent: KubeObject; child: KubeObject }> {
  const data = { a: '1', b: '2' };
  const parent = await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels: { strategy } }, spec: { data } });
  const child = await writeAsMetacontroller(parent, mode, data);
  expect(managersOf(child)).toEqual([`${METACONTROLLER}/${mode === 'dynamic-apply' ? 'Update' : 'Apply'}`]);
  return { parent, child };
}

/** Edits the parent so that `a` changes and `b` is dropped, and waits for the child to follow. */
async function editAndConverge(parent: KubeObject): Promise<KubeObject> {
  await clients.apply({ ...parent, metadata: { name: parent.metadata.name ?? '', namespace, labels: parent.metadata.labels ?? {} }, spec: { data: { a: '10' } } });
  return eventually(async () => {
    const cm = await configMap(`${parent.metadata.name}-cm`);
    return JSON.stringify(cm?.data) === JSON.stringify({ a: '10' }) ? cm : undefined;
  }, `${parent.metadata.name}'s child to hold only a=10 (b removed)`, 30_000);
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
});

afterAll(async () => {
  for (const host of hosts) await host.stop();
});

describe('loom taking over from Metacontroller, with server-side apply (loom\'s default)', () => {
  const parents: { mode: 'dynamic-apply' | 'server-side-apply'; parent: KubeObject; child: KubeObject }[] = [];
  let target: { parent: KubeObject; child: KubeObject };

  beforeAll(async () => {
    for (const mode of ['dynamic-apply', 'server-side-apply'] as const) parents.push({ mode, ...(await takenOverParent(`ssa-from-${mode}`, 'ssa', mode)) });
    target = await takenOverParent('decorated-from-dynamic-apply', 'decorated', 'dynamic-apply');
    hosts.push(await startTestLoom(`${LABEL}-ssa`, { applyStrategy: 'server-side-apply', fieldManager: 'loom' }));
    await clients.apply(controller('migration-ssa', 'ssa'));
    await clients.apply(decorator);
  });

  it('takes over a DecoratorController\'s attachment the same way', async () => {
    const after = await editAndConverge(target.parent);
    expect(after.metadata.uid).toBe(target.child.metadata.uid);
    expect(managersOf(after)).toEqual(['loom/Apply']);
    expect(after.metadata.annotations).toEqual({ [DECORATOR_CONTROLLER_ANNOTATION]: 'migration-decorator' });
    expect(after.metadata.ownerReferences).toEqual([controllerRefFor(target.parent)]);
  });

  it.each(['dynamic-apply', 'server-side-apply'] as const)('takes a child Metacontroller wrote by %s over without recreating it, and removals work', async (mode) => {
    const { parent, child } = parents.find((p) => p.mode === mode)!;
    const after = await editAndConverge(parent);
    expect(after.metadata.uid).toBe(child.metadata.uid);
    expect(managersOf(after)).toEqual(['loom/Apply']);
    expect(after.metadata.annotations ?? {}).toEqual({});
    expect(after.metadata.ownerReferences).toEqual([controllerRefFor(parent)]);
  });
});

describe('loom taking over from Metacontroller, with dynamic apply', () => {
  let parent: KubeObject;
  let child: KubeObject;

  beforeAll(async () => {
    ({ parent, child } = await takenOverParent('dynamic-from-dynamic-apply', 'dynamic', 'dynamic-apply'));
    hosts.push(await startTestLoom(`${LABEL}-dynamic`, { applyStrategy: 'dynamic-apply', fieldManager: 'loom' }));
    await clients.apply(controller('migration-dynamic', 'dynamic'));
  });

  it('merges with Metacontroller\'s annotation: nothing recreated, the edit arrives, a dropped key is removed', async () => {
    const after = await editAndConverge(parent);
    expect(after.metadata.uid).toBe(child.metadata.uid);
    expect(after.metadata.ownerReferences).toEqual([controllerRefFor(parent)]);
    // Recorded as Metacontroller records it, so Metacontroller can take the child back.
    const recorded = JSON.parse(after.metadata.annotations?.['metacontroller.k8s.io/last-applied-configuration'] ?? '{}') as KubeObject;
    expect(recorded.data).toEqual({ a: '10' });
    expect(recorded.metadata.ownerReferences).toBeUndefined();
  });
});
