/**
 * Doomed writes on the real control plane: a parent whose hook wants 20 ConfigMaps in a namespace that
 * is being deleted. The API server refuses the first create ("being terminated"); loom does not issue
 * the other 19 in that sync, nor in any later one, and says why in a SyncError.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { syncErrorMessages } from './support/shelf.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'doomed';
const KIND = TEST_PARENT_KINDS.doomed;
const HOLD = 'loom.test/hold';
let clients: TestClients;
let loom: TestLoom;
let doomed: string;
/** Names of the ConfigMaps loom tried to write in the doomed namespace. */
const attempted = new Set<string>();

const holderRef = () => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: doomed, name: 'holder' });

beforeAll(async () => {
  clients = await testClients();
  doomed = await createTestNamespace(testKubeConfig(), 'doomed');
  await createParentCrd(clients, KIND);
  // A finalizer on an object inside keeps the namespace Terminating once it is deleted.
  await clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'holder', namespace: doomed, finalizers: [HOLD] } });
  await clients.writer.delete({ apiVersion: 'v1', kind: 'Namespace', name: doomed });
  const prefix = `/api/v1/namespaces/${doomed}/configmaps/`;
  loom = await startTestLoom(LABEL, {}, ({ method, path }) => {
    if (method !== 'GET' && method !== 'WATCH' && path.startsWith(prefix)) attempted.add(path.slice(prefix.length));
  });
});

afterAll(async () => {
  await loom?.stop();
  // Let the namespace go.
  await clients.writer.patchJson(holderRef(), [{ op: 'remove', path: '/metadata/finalizers' }]).catch(() => undefined);
});

describe('doomed writes', () => {
  it('stops writing into a namespace that is being terminated after the first refusal', async () => {
    const children = `[0..19].{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm-" & $string($), "namespace": "${doomed}"}}`;
    await clients.apply({
      apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
      metadata: { name: 'doomed-writer', labels: { 'loom-test': LABEL } },
      spec: {
        generateSelector: true,
        parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
        childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
        hooks: { sync: { jsonata: { expression: `{"children": ${children}}` } } },
      },
    });
    const parent: KubeObject = { apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'doomed-parent' }, spec: {} };
    await clients.apply(parent);
    const [message] = await syncErrorMessages(clients, { kind: KIND.kind, name: 'doomed-parent' });
    expect(message).toMatch(/being terminated/);
    expect(message).toMatch(/not attempted/);
    // Another sync or two, which must not try the other children either.
    await clients.apply({ ...parent, spec: { touched: true } });
    await eventually(async () => ((await syncErrorMessages(clients, { kind: KIND.kind, name: 'doomed-parent' })).length > 0 ? true : undefined), 'the SyncError');
    expect([...attempted]).toEqual(['cm-0']);
  });
});
