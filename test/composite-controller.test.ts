/**
 * An unchanged Metacontroller CompositeController manifest with an HTTP hook, run by loom against the
 * real control plane: children created and updated, status written, cascading delete — once with
 * server-side apply and once with Metacontroller's 3-way merge (`--apply-strategy=dynamic-apply`).
 * Each mode has its own host and controller; parents pick one with a `mode` label.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const MODES = ['server-side-apply', 'dynamic-apply'] as const;
type Mode = (typeof MODES)[number];
let clients: TestClients;
const hosts: TestLoom[] = [];
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
  for (const mode of MODES) {
    const label = `composite-${mode}`;
    hosts.push(await startTestLoom(label, { applyStrategy: mode }));
    await clients.apply({
      apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
      metadata: { name: `paint-controller-${mode}`, labels: { 'loom-test': label } },
      spec: {
        parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: 'paints', labelSelector: { matchLabels: { mode } } },
        childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
        hooks: { sync: { webhook: { url } } },
      },
    });
  }
});

afterAll(async () => {
  for (const host of hosts) await host.stop();
  await hook?.close();
});

const paint = (name: string, color: string, mode: Mode): KubeObject => ({
  apiVersion: `${TEST_GROUP}/v1`, kind: 'Paint',
  metadata: { name, namespace, labels: { mode } },
  spec: { selector: { matchLabels: { paint: name } }, color },
});
const configMapRef = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const paintRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind: 'Paint', namespace, name });

describe.each(MODES)('CompositeController with a webhook, %s', (current) => {
  // Names are per mode, so the two runs of each case never touch the same objects.
  const n = (name: string) => `${name}-${current === 'server-side-apply' ? 'ssa' : 'dyn'}`;

  it('creates the children the hook asks for and writes the status', async () => {
    const parent = await clients.apply(paint(n('red'), 'red', current));
    const child = await eventually(() => clients.writer.get(configMapRef(`${n('red')}-config`)), 'the child ConfigMap');
    expect(child.data).toEqual({ color: 'red' });
    expect(child.metadata.labels).toEqual({ paint: n('red') });
    expect(child.metadata.ownerReferences).toEqual([{
      apiVersion: `${TEST_GROUP}/v1`, kind: 'Paint', name: n('red'), uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true,
    }]);
    const synced = await eventually(async () => {
      const current = await clients.writer.get(paintRef(n('red')));
      const status = current?.status as { observedChildren?: string[]; observedGeneration?: number } | undefined;
      return status?.observedChildren?.length === 1 ? status : undefined;
    }, 'the status to list the child');
    expect(synced).toEqual({ observedChildren: [`${n('red')}-config`], observedGeneration: 1 });
  });

  it('updates a child in place when the parent changes', async () => {
    await clients.apply(paint(n('blue'), 'blue', current));
    await eventually(() => clients.writer.get(configMapRef(`${n('blue')}-config`)), 'the child ConfigMap');
    await clients.apply(paint(n('blue'), 'navy', current));
    const updated = await eventually(async () => {
      const child = await clients.writer.get(configMapRef(`${n('blue')}-config`));
      return (child?.data as { color?: string } | undefined)?.color === 'navy' ? child : undefined;
    }, 'the child to follow the parent');
    if (current === 'server-side-apply') {
      expect((updated.metadata.managedFields as { manager: string; operation: string }[])).toContainEqual(expect.objectContaining({ manager: 'loom', operation: 'Apply' }));
    } else {
      expect(updated.metadata.annotations?.['metacontroller.k8s.io/last-applied-configuration']).toContain('navy');
    }
  });

  it('leaves the children to garbage collection when the parent is deleted', async () => {
    await clients.apply(paint(n('green'), 'green', current));
    await eventually(() => clients.writer.get(configMapRef(`${n('green')}-config`)), 'the child ConfigMap');
    await clients.writer.delete(paintRef(n('green')));
    const gone = await eventually(async () => ((await clients.writer.get(configMapRef(`${n('green')}-config`))) ? undefined : true), 'the child to be collected');
    expect(gone).toBe(true);
  });
});
