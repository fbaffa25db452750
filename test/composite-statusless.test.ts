/**
 * A parent type without a status subresource: loom still manages its children, skips the status
 * write (a plain update would bump generation and loop, Metacontroller's old hot loop) and says so
 * once, in an event on the controller.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'statusless';
let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let namespace: string;
let hookCalls = 0;

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, TEST_PARENT_KINDS.statusless);
  hook = Fastify();
  hook.post('/sync', (req) => {
    hookCalls++;
    const { parent } = req.body as { parent: KubeObject };
    return { status: { seen: true }, children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-cm` } }] };
  });
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  loom = await startTestLoom(LABEL);
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'statusless-controller', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: TEST_PARENT_KINDS.statusless.plural },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { webhook: { url } } },
    },
  });
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
});

describe('a parent without a status subresource', () => {
  it('gets its children, no status, and one event on the controller', async () => {
    for (const name of ['one', 'two']) {
      await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: TEST_PARENT_KINDS.statusless.kind, metadata: { name, namespace } });
    }
    for (const name of ['one', 'two']) {
      await eventually(() => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-cm` }), `the child of ${name}`);
    }
    const events = await eventually(async () => {
      const list = await clients.client.request<{ items: { reason: string; message: string; involvedObject: { name: string } }[] }>({
        method: 'GET', path: '/api/v1/namespaces/default/events', query: { fieldSelector: 'involvedObject.name=statusless-controller' },
      });
      const found = list.items.filter((e) => e.reason === 'SyncError');
      return found.length > 0 ? found : undefined;
    }, 'the SyncError event on the controller');
    expect(events).toHaveLength(1);
    expect(events[0]!.message).toContain('has no status subresource');
    const parent = await clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: TEST_PARENT_KINDS.statusless.kind, namespace, name: 'one' });
    expect(parent?.status).toBeUndefined();
    expect(parent?.metadata.generation).toBe(1);
    expect(hookCalls).toBeGreaterThanOrEqual(2);
  });
});
