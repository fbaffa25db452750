/**
 * Every write loom makes names its field manager (`--apply-strategy-ssa-field-manager`), so
 * `managedFields` says which fields are loom's, not `unknown`'s: a child created and then updated
 * in place by dynamic apply (POST, then PUT), the parent's status (PUT to the status subresource),
 * its finalizer and ControllerRevisions, a DecoratorController's labels on its target (an update of
 * the target), and the events loom records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, managersOf, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'field-managers';
const FIELD_MANAGER = 'loom-field-managers';
const KIND = TEST_PARENT_KINDS.managed;

let clients: TestClients;
let loom: TestLoom | undefined;
let namespace: string;

const SYNC = `{
  "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-child" }, "data": { "who": parent.spec.who } }],
  "status": { "who": parent.spec.who }
}`;

const parentResource = (role: string) => ({ apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { role } } });

const controllers: KubeObject[] = [
  {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'field-managers-composite', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true, parentResource: parentResource('parent'),
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { jsonata: { expression: SYNC } } },
    },
  },
  {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'field-managers-rolling', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true, parentResource: parentResource('rolling'),
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'RollingInPlace' } }],
      hooks: { sync: { jsonata: { expression: SYNC } }, finalize: { jsonata: { expression: '{ "finalized": true }' } } },
    },
  },
  {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController', metadata: { name: 'field-managers-decorator', labels: { 'loom-test': LABEL } },
    spec: {
      resources: [{ ...parentResource('target') }],
      hooks: { sync: { jsonata: { expression: '{ "labels": { "decorated": "yes" } }' } } },
    },
  },
];

const object = (name: string, role: string, who: string): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels: { role } }, spec: { who } });
const get = (apiVersion: string, kind: string, name: string) => clients.writer.get({ apiVersion, kind, namespace, name });
const whoOf = (cm: KubeObject | undefined) => (cm?.data as { who?: string } | undefined)?.who;


beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  loom = await startTestLoom(LABEL, { applyStrategy: 'dynamic-apply', fieldManager: FIELD_MANAGER });
  for (const controller of controllers) await clients.apply(controller);
});

afterAll(async () => {
  await loom?.stop();
});

describe('field managers', () => {
  it('name loom on a child created and updated by dynamic apply, and on the parent\'s status', async () => {
    await clients.apply(object('p', 'parent', 'one'));
    await eventually(async () => (whoOf(await get('v1', 'ConfigMap', 'p-child')) === 'one' ? true : undefined), 'the child');
    await clients.apply(object('p', 'parent', 'two'));
    const child = await eventually(async () => {
      const cm = await get('v1', 'ConfigMap', 'p-child');
      return whoOf(cm) === 'two' ? cm : undefined;
    }, 'the child updated in place');
    expect(managersOf(child)).toEqual([`${FIELD_MANAGER}/Update`]);
    const parent = await eventually(async () => {
      const p = await get(`${TEST_GROUP}/v1`, KIND.kind, 'p');
      return (p?.status as { who?: string } | undefined)?.who === 'two' ? p : undefined;
    }, 'the parent status');
    expect(managersOf(parent)).toContain(`${FIELD_MANAGER}/Update/status`);
    expect(managersOf(parent).filter((m) => !m.startsWith('loom-test/'))).toEqual([`${FIELD_MANAGER}/Update/status`]);
  });

  it('name loom on a decorator\'s labels on its target', async () => {
    await clients.apply(object('t', 'target', 'x'));
    const target = await eventually(async () => {
      const t = await get(`${TEST_GROUP}/v1`, KIND.kind, 't');
      return t?.metadata.labels?.decorated === 'yes' ? t : undefined;
    }, 'the decorator\'s label');
    expect(managersOf(target).filter((m) => !m.startsWith('loom-test/'))).toEqual([`${FIELD_MANAGER}/Update`]);
  });

  it('name loom on a parent\'s finalizer and on its ControllerRevisions', async () => {
    await clients.apply(object('r', 'rolling', 'one'));
    const parent = await eventually(async () => {
      const p = await get(`${TEST_GROUP}/v1`, KIND.kind, 'r');
      return p?.metadata.finalizers?.length ? p : undefined;
    }, 'the finalizer');
    expect(managersOf(parent).filter((m) => !m.startsWith('loom-test/'))).toContain(`${FIELD_MANAGER}/Update`);
    const path = `/apis/metacontroller.k8s.io/v1alpha1/namespaces/${namespace}/controllerrevisions`;
    const revisions = await eventually(async () => {
      const { items } = await clients.client.request<{ items: KubeObject[] }>({ method: 'GET', path });
      return items.length > 0 ? items : undefined;
    }, 'a ControllerRevision');
    for (const revision of revisions) expect(managersOf(revision)).toEqual([`${FIELD_MANAGER}/Update`]);
  });

  it('name loom on the events it records', async () => {
    // A cluster-scoped controller's events go to namespace default; `Started` is recorded at every start.
    const path = '/api/v1/namespaces/default/events';
    const started = await eventually(async () => {
      const { items } = await clients.client.request<{ items: KubeObject[] }>({
        method: 'GET', path, query: { fieldSelector: 'involvedObject.name=field-managers-composite,reason=Started' },
      });
      return items[0];
    }, 'the controller\'s Started event');
    expect(managersOf(started)).toEqual([`${FIELD_MANAGER}/Update`]);
  });
});
