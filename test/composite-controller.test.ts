/**
 * An unchanged Metacontroller CompositeController manifest with an HTTP hook, run by loom against the
 * real control plane: children created and updated, status written, cascading delete.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'composite';
let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let namespace: string;
const hookCalls: { parent: string; finalizing: boolean }[] = [];

interface SyncRequest {
  parent: KubeObject & { spec: { selector: { matchLabels: Record<string, string> }; color?: string } };
  children: Record<string, Record<string, KubeObject>>;
  finalizing: boolean;
}

/** Desired: one ConfigMap per parent carrying the parent's colour; status counts observed children. */
function sync(req: SyncRequest) {
  const { parent } = req;
  hookCalls.push({ parent: parent.metadata.name!, finalizing: req.finalizing });
  const observed = Object.keys(req.children['ConfigMap.v1'] ?? {});
  return {
    status: { observedChildren: observed.sort() },
    children: [{
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: `${parent.metadata.name}-config`, labels: parent.spec.selector.matchLabels },
      data: { color: parent.spec.color ?? 'none' },
    }],
  };
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), 'composite');
  await createParentCrd(clients, TEST_PARENT_KINDS.paint);
  hook = Fastify();
  hook.post('/sync', (request) => sync(request.body as SyncRequest));
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  loom = await startTestLoom(LABEL);
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'paint-controller', labels: { 'loom-test': LABEL } },
    spec: {
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: 'paints' },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { webhook: { url } } },
    },
  });
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
});

const paint = (name: string, color: string): KubeObject => ({
  apiVersion: `${TEST_GROUP}/v1`, kind: 'Paint',
  metadata: { name, namespace },
  spec: { selector: { matchLabels: { paint: name } }, color },
});
const configMapRef = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const paintRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind: 'Paint', namespace, name });

describe('CompositeController with a webhook', () => {
  it('creates the children the hook asks for and writes the status', async () => {
    const parent = await clients.apply(paint('red', 'red'));
    const child = await eventually(() => clients.writer.get(configMapRef('red-config')), 'the child ConfigMap');
    expect(child.data).toEqual({ color: 'red' });
    expect(child.metadata.labels).toEqual({ paint: 'red' });
    expect(child.metadata.ownerReferences).toEqual([{
      apiVersion: `${TEST_GROUP}/v1`, kind: 'Paint', name: 'red', uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true,
    }]);
    const synced = await eventually(async () => {
      const current = await clients.writer.get(paintRef('red'));
      const status = current?.status as { observedChildren?: string[]; observedGeneration?: number } | undefined;
      return status?.observedChildren?.length === 1 ? status : undefined;
    }, 'the status to list the child');
    expect(synced).toEqual({ observedChildren: ['red-config'], observedGeneration: 1 });
  });

  it('updates a child in place when the parent changes', async () => {
    await clients.apply(paint('blue', 'blue'));
    await eventually(() => clients.writer.get(configMapRef('blue-config')), 'the child ConfigMap');
    await clients.apply(paint('blue', 'navy'));
    const updated = await eventually(async () => {
      const child = await clients.writer.get(configMapRef('blue-config'));
      return (child?.data as { color?: string } | undefined)?.color === 'navy' ? child : undefined;
    }, 'the child to follow the parent');
    expect((updated.metadata.managedFields as { manager: string }[]).map((f) => f.manager)).toContain('loom');
  });

  it('leaves the children to garbage collection when the parent is deleted', async () => {
    await clients.apply(paint('green', 'green'));
    await eventually(() => clients.writer.get(configMapRef('green-config')), 'the child ConfigMap');
    await clients.writer.delete(paintRef('green'));
    const gone = await eventually(async () => ((await clients.writer.get(configMapRef('green-config'))) ? undefined : true), 'the child to be collected');
    expect(gone).toBe(true);
  });
});
