/**
 * A built-in, cluster-scoped parent type (docs/concepts.md, "Parent status"): a CompositeController over
 * `v1` `namespaces` (only the namespaces this file creates, by label) with `generateSelector`, whose
 * hook puts one ConfigMap into each namespace and returns `status: null`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import type { RequestObserver } from '../src/kube/index.ts';
import { eventually } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';

const LABEL = 'builtin';
/** The label that makes a namespace a parent of this file's controller. */
const PARENT_LABEL = 'loom-test-parent';
const CHILD = 'builtin-child';

interface SyncRequest {
  parent: KubeObject;
}
type Request = Parameters<RequestObserver>[0];

let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
const created: string[] = [];
const hookCalls = new Map<string, number>();
const requests: Request[] = [];

/** A ConfigMap in the parent namespace (the hook must name it: the parent is cluster-scoped); no status. */
function sync({ parent }: SyncRequest) {
  const name = parent.metadata.name!;
  hookCalls.set(name, (hookCalls.get(name) ?? 0) + 1);
  return {
    status: null,
    children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CHILD, namespace: name }, data: { parent: name } }],
  };
}

beforeAll(async () => {
  clients = await testClients();
  hook = Fastify();
  hook.post('/sync', (request) => sync(request.body as SyncRequest));
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  loom = await startTestLoom(LABEL, {}, (request) => requests.push(request));
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'namespace-controller', labels: { 'loom-test': LABEL } },
    spec: {
      parentResource: { apiVersion: 'v1', resource: 'namespaces', labelSelector: { matchLabels: { [PARENT_LABEL]: LABEL } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      generateSelector: true,
      hooks: { sync: { webhook: { url } } },
    },
  });
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
  for (const name of created) await clients.writer.delete({ apiVersion: 'v1', kind: 'Namespace', name });
});

async function createParentNamespace(): Promise<KubeObject> {
  const ns = await clients.writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: `${LABEL}-`, labels: { [PARENT_LABEL]: LABEL } } });
  created.push(ns.metadata.name!);
  return ns;
}

/** Messages of the `SyncError` events on a namespace (events of cluster-scoped objects live in `default`). */
async function syncErrors(name: string): Promise<string[]> {
  const list = await clients.client.request<{ items: { reason?: string; message?: string; involvedObject: { kind?: string } }[] }>({
    method: 'GET', path: '/api/v1/namespaces/default/events', query: { fieldSelector: `involvedObject.name=${name}` },
  });
  return list.items.filter((e) => e.reason === 'SyncError' && e.involvedObject.kind === 'Namespace').map((e) => e.message ?? '');
}

describe('CompositeController with namespaces as parents', () => {
  it('creates the child in the namespace and leaves the namespace status alone', async () => {
    const ns = await createParentNamespace();
    const name = ns.metadata.name!;
    const child = await eventually(() => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: name, name: CHILD }), 'the child ConfigMap');
    expect(child.data).toEqual({ parent: name });
    expect(child.metadata.labels).toEqual({ 'controller-uid': ns.metadata.uid });
    expect(child.metadata.ownerReferences).toEqual([{
      apiVersion: 'v1', kind: 'Namespace', name, uid: ns.metadata.uid, controller: true, blockOwnerDeletion: true,
    }]);
    // A second hook call means the first sync, status write included, has finished (syncs of one key never overlap).
    await eventually(() => Promise.resolve((hookCalls.get(name) ?? 0) >= 2 || undefined), 'a second sync of the namespace');
    const after = await clients.writer.get({ apiVersion: 'v1', kind: 'Namespace', name });
    expect(after?.status).toEqual({ phase: 'Active' });

    // `status: null` leaves a built-in parent's status alone: no write at all, not a write of `{}`.
    const statusWrites = requests.filter((r) => r.method !== 'GET' && r.path === `/api/v1/namespaces/${name}/status`);
    expect(statusWrites).toEqual([]);
    expect(await syncErrors(name)).toEqual([]);
  });

  it('does not take namespaces without the parent label', async () => {
    const other = await clients.writer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: `${LABEL}-unlabelled-` } });
    created.push(other.metadata.name!);
    const labelled = await createParentNamespace();
    await eventually(() => Promise.resolve((hookCalls.get(labelled.metadata.name!) ?? 0) >= 2 || undefined), 'two syncs of the labelled namespace');
    expect(hookCalls.get(other.metadata.name!)).toBeUndefined();
    expect(await clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: other.metadata.name!, name: CHILD })).toBeUndefined();
  });
});
