/**
 * Sharding through failures and growth, on real Leases: a replica in its own process is killed with
 * SIGKILL half-way through converging, and the others take its buckets once its member Lease expires,
 * losing and duplicating nothing; then a fourth replica joins while the parents keep changing, and the
 * buckets that move to it are drained first: no parent's children are written by the old holder after
 * the new one has started writing them. Prints the handover time after the kill.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { bucketOf } from '../src/core/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { spawnLoom, type LoomProcess } from './support/loom-process.ts';
import { LIVE_MEMBER_LEASE_MS, whenSplit } from './support/shard-leases.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'handover';
const KIND = TEST_PARENT_KINDS.handover;
const BUCKETS = 8;
const GROUP = 'loom-handover-test';
/** The killed replica's member Lease (the shortest there is): the others take its buckets once it expires. */
const LEASE_MS = 3_000;
const PARENTS = 60;
let clients: TestClients;
let hook: FastifyInstance;
let namespace: string;
let killed: LoomProcess | undefined;
const replicas = new Map<string, TestLoom>();
/** Each in-process replica's child writes: which parent, and when the API server answered. */
const writes: { replica: string; parent: string; at: number }[] = [];

async function replica(identity: string): Promise<void> {
  const sharding = { namespace, group: GROUP, identity, buckets: BUCKETS, leaseDurationMs: LIVE_MEMBER_LEASE_MS };
  replicas.set(identity, await startTestLoom(LABEL, { sharding }, ({ method, path }) => {
    const child = /\/namespaces\/[^/]+\/configmaps\/([^/?]+)-child$/.exec(path);
    if (method !== 'GET' && child) writes.push({ replica: identity, parent: child[1]!, at: performance.now() });
  }));
}

/** Resolves once the holders' bucket counts are `shares` (in any order), among `among` only when given. */
function balanced(shares: number[], among?: readonly string[]): Promise<Map<number, string>> {
  const want = JSON.stringify([...shares].sort());
  return whenSplit({ client: clients.client, namespace, group: GROUP, buckets: BUCKETS }, (counts) =>
    (!among || [...counts.keys()].every((h) => among.includes(h))) && JSON.stringify([...counts.values()].sort()) === want, JSON.stringify(shares));
}

const parentPath = () => `/apis/${TEST_GROUP}/v1/namespaces/${namespace}/${KIND.plural}`;
const parent = (name: string, value: number): KubeObject => ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace }, spec: { value } });

async function children(): Promise<KubeObject[]> {
  return (await clients.client.request<{ items: KubeObject[] }>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/configmaps` })).items
    .filter((c) => c.metadata.name?.endsWith('-child'));
}

/** Resolves when every parent's child holds the parent's current `spec.value`. */
function converged(): Promise<KubeObject[]> {
  return eventually(async () => {
    const { items } = await clients.client.request<{ items: (KubeObject & { spec?: { value?: number } })[] }>({ method: 'GET', path: parentPath() });
    const byName = new Map((await children()).map((c) => [c.metadata.name, c]));
    const done = items.length === PARENTS && items.every((p) => (byName.get(`${p.metadata.name}-child`)?.data as { value?: string } | undefined)?.value === String(p.spec?.value));
    return done ? [...byName.values()] : undefined;
  }, 'every parent to converge', 60_000);
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  hook = Fastify();
  hook.post('/sync', (req) => {
    const { parent: p } = req.body as { parent: KubeObject & { spec?: { value?: number } } };
    return { children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${p.metadata.name}-child` }, data: { value: String(p.spec?.value) } }] };
  });
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'handover-controller', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { webhook: { url } } },
    },
  });
});

afterAll(async () => {
  await killed?.kill();
  for (const r of replicas.values()) await r.stop();
  await hook?.close();
});

describe('sharding handovers', () => {
  it('takes over a killed replica\'s buckets, losing nothing, and drains the buckets a new replica takes', async () => {
    killed = await spawnLoom(LABEL, ['--shards', String(BUCKETS), '--shard-lease-duration', `${LEASE_MS / 1000}s`, '--leader-election-namespace', namespace, '--leader-election-id', GROUP]);
    await replica('replica-b');
    await replica('replica-c');
    const split = await balanced([3, 3, 2]);
    const victim = [...new Set(split.values())].find((h) => !replicas.has(h))!;

    await Promise.all(Array.from({ length: PARENTS }, (_, i) => clients.apply(parent(`p${i}`, 1))));
    // Kill it once it has written some of its parents' children, before all.
    const victimsParents = async () => (await clients.client.request<{ items: KubeObject[] }>({ method: 'GET', path: parentPath() })).items
      .filter((p) => split.get(bucketOf(p.metadata.uid!, BUCKETS)) === victim).map((p) => p.metadata.name!);
    await eventually(async () => {
      const names = new Set((await children()).map((c) => c.metadata.name));
      return (await victimsParents()).some((p) => names.has(`${p}-child`)) || undefined;
    }, 'the victim to write a child');
    const before = new Map((await children()).map((c) => [c.metadata.name, c.metadata.uid]));
    const killedAt = systemClock.now();
    await killed.kill();
    await balanced([4, 4], ['replica-b', 'replica-c']);
    const handoverMs = systemClock.now() - killedAt;
    const after = await converged();
    expect(after).toHaveLength(PARENTS);
    // Nothing recreated: every child that existed at the kill is the same object.
    for (const [name, uid] of before) expect(after.find((c) => c.metadata.name === name)?.metadata.uid).toBe(uid);
    const victimBuckets = [...split.values()].filter((h) => h === victim).length;
    console.log(`sharding: a SIGKILLed replica's ${victimBuckets} buckets were taken over ${handoverMs} ms after the kill (member Lease ${LEASE_MS} ms)`);

    // Keep the parents changing while a fourth replica joins.
    let value = 2;
    let touching = true;
    const touch = (async () => {
      while (touching) {
        await Promise.all(Array.from({ length: PARENTS }, (_, i) => clients.apply(parent(`p${i}`, value))));
        value++;
        await systemClock.sleep(300);
      }
    })();
    writes.length = 0;
    await replica('replica-d');
    await balanced([3, 3, 2], ['replica-b', 'replica-c', 'replica-d']);
    // Touching until the new replica has written a child of its buckets, not for a fixed time: on a
    // loaded machine the new replica may not have started writing within any given time.
    await eventually(() => Promise.resolve(writes.some((w) => w.replica === 'replica-d') || undefined), 'the new replica to write a child', 60_000);
    touching = false;
    await touch;
    await converged();

    const moved = new Set(writes.filter((w) => w.replica === 'replica-d').map((w) => w.parent));
    expect(moved.size).toBeGreaterThan(0);
    for (const name of moved) {
      const firstByNew = Math.min(...writes.filter((w) => w.parent === name && w.replica === 'replica-d').map((w) => w.at));
      const lastByOld = Math.max(-Infinity, ...writes.filter((w) => w.parent === name && w.replica !== 'replica-d').map((w) => w.at));
      expect(lastByOld, `${name}: the old holder wrote after the new one had started`).toBeLessThan(firstByNew);
    }
  });
});
