/**
 * One CompositeController per parent, on the real control plane: of two controllers naming the same
 * parent type with overlapping parent selectors, only the running one syncs; the second reports
 * `Ready=False` (reason `ParentTypeTaken`) naming it, writes nothing, and takes over once the first is
 * deleted. Controllers whose parent selectors cannot match the same parent share the type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, LabelSelector } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { readyCondition, startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'owners';
const KIND = TEST_PARENT_KINDS.contested;
let clients: TestClients;
let loom: TestLoom;
let namespace: string;

/** A controller whose hook creates one ConfigMap `<parent>-<controller>` and says who synced in the status. */
function controller(name: string, labelSelector?: LabelSelector): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name, labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, ...(labelSelector ? { labelSelector } : {}) },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { jsonata: { expression: `{"children": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": parent.metadata.name & "-${name}"}}], "status": {"by": "${name}"}}` } } },
    },
  };
}

const ccRef = (name: string) => ({ apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', name });
const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, namespace, name });
const configMap = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const parent = (name: string, labels: Record<string, string> = {}): KubeObject => ({ ...parentRef(name), metadata: { name, namespace, labels }, spec: {} });
const syncedBy = async (name: string) => ((await clients.writer.get(parentRef(name)))?.status as { by?: string } | undefined)?.by;

async function readyOf(name: string, status: 'True' | 'False') {
  return eventually(async () => {
    const ready = await readyCondition(clients, name);
    return ready?.status === status ? ready : undefined;
  }, `${name} Ready=${status}`);
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  loom = await startTestLoom(LABEL);
});

afterAll(async () => {
  await loom?.stop();
});

describe('one CompositeController per parent', () => {
  it('runs only the first of two controllers on one parent type, and hands over when it goes', async () => {
    await clients.apply(controller('owner-first'));
    await readyOf('owner-first', 'True');
    await clients.apply(controller('owner-second'));
    const refused = await readyOf('owner-second', 'False');
    expect(refused.reason).toBe('ParentTypeTaken');
    expect(refused.message).toContain('CompositeController owner-first already syncs parents of contesteds');

    await clients.apply(parent('shared'));
    await eventually(() => configMap('shared-owner-first'), 'the first controller to sync');
    await eventually(async () => ((await syncedBy('shared')) === 'owner-first' ? true : undefined), 'the status by the first controller');
    expect(await configMap('shared-owner-second')).toBeUndefined();

    await clients.writer.delete(ccRef('owner-first'));
    await readyOf('owner-second', 'True');
    await eventually(() => configMap('shared-owner-second'), 'the second controller to take over');
    await eventually(async () => ((await syncedBy('shared')) === 'owner-second' ? true : undefined), 'the status by the second controller');
    await clients.writer.delete(ccRef('owner-second'));
  });

  it('lets controllers whose parent selectors cannot meet share the type', async () => {
    await clients.apply(controller('owner-blue', { matchLabels: { color: 'blue' } }));
    await clients.apply(controller('owner-green', { matchLabels: { color: 'green' } }));
    await readyOf('owner-blue', 'True');
    await readyOf('owner-green', 'True');
    await clients.apply(parent('blue', { color: 'blue' }));
    await clients.apply(parent('green', { color: 'green' }));
    await eventually(() => configMap('blue-owner-blue'), 'the blue parent synced');
    await eventually(() => configMap('green-owner-green'), 'the green parent synced');
  });
});
