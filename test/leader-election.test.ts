/**
 * `--leader-election` with a real Lease: of two replicas only the holder runs controllers; when it
 * stops it releases the lease and the standby takes over without waiting for expiry.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'leader';
const KIND = TEST_PARENT_KINDS.paint;
let clients: TestClients;
let hook: FastifyInstance;
let namespace: string;
const replicas = new Map<string, TestLoom>();

const leaseRef = () => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace, name: 'loom-leader-test' });
const holder = async () => ((await clients.writer.get(leaseRef()))?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
const child = (parent: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${parent}-leader` });

/** Every API request each replica made, so a standby can be shown to leave parents and children alone. */
const requests = new Map<string, { method: string; path: string }[]>();

async function replica(identity: string): Promise<void> {
  const seen: { method: string; path: string }[] = [];
  requests.set(identity, seen);
  replicas.set(identity, await startTestLoom(LABEL, { leaderElection: { namespace, name: 'loom-leader-test', identity } }, (r) => void seen.push(r)));
}

/** Requests that only a running controller makes: watching the parent type, writing children. */
const controllerWork = (identity: string) =>
  (requests.get(identity) ?? []).filter((r) => r.path.includes(`/${KIND.plural}`) || (r.method !== 'GET' && r.path.includes('/configmaps')));

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  hook = Fastify();
  hook.post('/sync', (req) => {
    const { parent } = req.body as { parent: KubeObject };
    return { children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-leader` } }] };
  });
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'leader-controller', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { mode: 'leader' } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { webhook: { url } } },
    },
  });
});

afterAll(async () => {
  for (const r of replicas.values()) await r.stop();
  await hook?.close();
});

const parent = (name: string): KubeObject => ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels: { mode: 'leader' } } });

describe('leader election', () => {
  it('runs controllers only on the lease holder, and hands the lease to the standby when the leader stops', async () => {
    await replica('replica-a');
    await eventually(async () => ((await holder()) === 'replica-a' ? true : undefined), 'replica-a to lead');
    await replica('replica-b');
    await clients.apply(parent('first'));
    await eventually(() => child('first'), 'the leader to sync the first parent');
    expect(await holder()).toBe('replica-a');
    expect(controllerWork('replica-a').length).toBeGreaterThan(0);
    expect(controllerWork('replica-b')).toEqual([]);

    await replicas.get('replica-a')!.stop();
    replicas.delete('replica-a');
    // Released as it stopped, so the standby need not wait for the 15 s lease to expire: whether it
    // takes over within some time would depend on the machine's speed, the released lease does not.
    expect(await holder()).not.toBe('replica-a');
    await eventually(async () => ((await holder()) === 'replica-b' ? true : undefined), 'replica-b to take over');
    await clients.apply(parent('second'));
    await eventually(() => child('second'), 'the new leader to sync the second parent');
    expect(controllerWork('replica-b').length).toBeGreaterThan(0);
    const lease = await clients.writer.get(leaseRef());
    expect((lease?.spec as { leaseTransitions?: number }).leaseTransitions).toBe(1);
  });
});
