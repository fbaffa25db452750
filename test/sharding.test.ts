/**
 * `--shards` with real Leases: three replicas split the parent buckets, 1,000 parents × 3 children
 * converge with each parent's children written by one replica only, everything is labelled with its bucket, and when a replica stops
 * its buckets move to the others, which then sync the parents in them. A DecoratorController's
 * targets and attachments are shared out the same way.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { bucketOf, SHARD_LABEL } from '../src/core/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { LIVE_MEMBER_LEASE_MS, whenSplit } from './support/shard-leases.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'sharding';
const KIND = TEST_PARENT_KINDS.sharded;
const TARGET = TEST_PARENT_KINDS.shardTarget;
const BUCKETS = 8;
const GROUP = 'loom-shard-test';
let clients: TestClients;
let hook: FastifyInstance;
let namespace: string;
const replicas = new Map<string, TestLoom>();
/**
 * Enough parents that every bucket holds many and the replicas write at the same time; how far loom
 * scales is the shard benchmark's question (`npm run bench:shards`), not this test's. 3,000 took
 * 4 to 7 minutes on a loaded 2-core machine, where every replica is in this test's process beside an
 * API server short of CPU.
 */
const PARENTS = 1_000;
/** A guard against a hang, not a speed target. */
const CONVERGE_WAIT_MS = 600_000;
/** Per replica, the parents (or decorator targets) whose children (attachments) it wrote. */
const childWrites = new Map<string, Set<string>>();

async function replica(identity: string): Promise<void> {
  const writes = new Set<string>();
  childWrites.set(identity, writes);
  const sharding = { namespace, group: GROUP, identity, buckets: BUCKETS, leaseDurationMs: LIVE_MEMBER_LEASE_MS };
  replicas.set(identity, await startTestLoom(LABEL, { sharding }, ({ method, path }) => {
    const child = /\/configmaps\/([^/?]+)-(?:a|b|c|att)$/.exec(path);
    if (method !== 'GET' && child) writes.add(child[1]!);
  }));
}

async function stopReplica(identity: string): Promise<void> {
  await replicas.get(identity)?.stop();
  replicas.delete(identity);
}

/** Resolves once the buckets are split exactly as `shares` (identity → bucket count). */
function balanced(shares: Record<string, number>): Promise<Map<number, string>> {
  const want = JSON.stringify(Object.entries(shares).sort());
  return whenSplit({ client: clients.client, namespace, group: GROUP, buckets: BUCKETS }, (counts) => JSON.stringify([...counts].sort()) === want, JSON.stringify(shares));
}

const parentPath = () => `/apis/${TEST_GROUP}/v1/namespaces/${namespace}/${KIND.plural}`;
const parent = (name: string): KubeObject => ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels: { mode: 'sharded' } } });

/** The parents, once every one of `names` reports its two children in its status. */
function converged(names: readonly string[]): Promise<KubeObject[]> {
  return eventually(async () => {
    const { items } = await clients.client.request<{ items: KubeObject[] }>({ method: 'GET', path: parentPath() });
    const wanted = new Set(names);
    const done = items.filter((p) => wanted.has(p.metadata.name ?? '') && (p.status as { children?: number } | undefined)?.children === 3);
    return done.length === names.length ? done : undefined;
  }, `${names.length} parents to converge`, CONVERGE_WAIT_MS);
}

/** Which replicas wrote the children of `parentName`. */
function writersOf(parentName: string): string[] {
  return [...childWrites].filter(([, writes]) => writes.has(parentName)).map(([identity]) => identity);
}

async function inBatches<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  await createParentCrd(clients, TARGET);
  hook = Fastify();
  hook.post('/sync', (req) => {
    const { parent: p, children } = req.body as { parent: KubeObject; children: Record<string, Record<string, unknown>> };
    return {
      status: { children: Object.keys(children['ConfigMap.v1'] ?? {}).length },
      children: ['a', 'b', 'c'].map((suffix) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${p.metadata.name}-${suffix}` }, data: { parent: p.metadata.name } })),
    };
  });
  hook.post('/decorate', (req) => {
    const { object } = req.body as { object: KubeObject };
    return { attachments: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${object.metadata.name}-att` } }] };
  });
  const base = await hook.listen({ host: '127.0.0.1', port: 0 });
  const url = `${base}/sync`;
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController',
    metadata: { name: 'sharded-decorator', labels: { 'loom-test': LABEL } },
    spec: {
      resources: [{ apiVersion: `${TEST_GROUP}/v1`, resource: TARGET.plural }],
      attachments: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { webhook: { url: `${base}/decorate` } } },
    },
  });
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'sharded-controller', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { mode: 'sharded' } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { webhook: { url } } },
    },
  });
});

afterAll(async () => {
  for (const identity of [...replicas.keys()]) await stopReplica(identity);
  await hook?.close();
});

describe('sharding', () => {
  it('splits the buckets, writes each parent from one replica, and moves a stopped replica\'s buckets to the others', async () => {
    await replica('replica-a');
    await balanced({ 'replica-a': BUCKETS });
    await replica('replica-b');
    await replica('replica-c');
    const split = await balanced({ 'replica-a': 3, 'replica-b': 3, 'replica-c': 2 });

    const first = Array.from({ length: PARENTS }, (_, i) => `p${i}`);
    const appliedFrom = systemClock.now();
    await inBatches(first, 25, (name) => clients.apply(parent(name)));
    const parents = await converged(first);
    console.log(`sharding: ${PARENTS} parents applied and converged in ${systemClock.now() - appliedFrom} ms`);
    const { items: children } = await clients.client.request<{ items: KubeObject[] }>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/configmaps` });
    const childLabels = new Map(children.map((c) => [c.metadata.name, c.metadata.labels?.[SHARD_LABEL]]));
    for (const p of parents) {
      const bucket = String(bucketOf(p.metadata.uid!, BUCKETS));
      expect(p.metadata.labels?.[SHARD_LABEL]).toBe(bucket);
      expect(writersOf(p.metadata.name!)).toEqual([split.get(Number(bucket))]);
      expect(['a', 'b', 'c'].map((suffix) => childLabels.get(`${p.metadata.name}-${suffix}`))).toEqual([bucket, bucket, bucket]);
    }
    // Every replica had parents to sync: the split is real, not one replica doing it all.
    expect(new Set(parents.map((p) => split.get(bucketOf(p.metadata.uid!, BUCKETS))))).toEqual(new Set(['replica-a', 'replica-b', 'replica-c']));

    await stopReplica('replica-c');
    const after = await balanced({ 'replica-a': 4, 'replica-b': 4 });
    for (const writes of childWrites.values()) writes.clear();
    const second = Array.from({ length: 8 }, (_, i) => `q${i}`);
    await Promise.all(second.map((name) => clients.apply(parent(name))));
    // The parents of replica-c's old buckets are synced by their new holders: change their spec and see it applied.
    const moved = parents.filter((p) => split.get(bucketOf(p.metadata.uid!, BUCKETS)) === 'replica-c').map((p) => p.metadata.name!).slice(0, 20);
    expect(moved.length).toBeGreaterThan(0);
    for (const p of [...(await converged(second)), ...parents.filter((q) => moved.includes(q.metadata.name!))]) {
      const bucket = bucketOf(p.metadata.uid!, BUCKETS);
      if (moved.includes(p.metadata.name!)) await clients.client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}/configmaps/${p.metadata.name}-b` });
      await eventually(() => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${p.metadata.name}-b` }), `${p.metadata.name}-b to be written`);
      expect(writersOf(p.metadata.name!)).toEqual([after.get(bucket)]);
    }
  }, CONVERGE_WAIT_MS + 300_000);

  it('shares out a DecoratorController\'s targets the same way, and labels their attachments', async () => {
    const split = await balanced({ 'replica-a': 4, 'replica-b': 4 });
    for (const writes of childWrites.values()) writes.clear();
    const names = Array.from({ length: 12 }, (_, i) => `t${i}`);
    await Promise.all(names.map((name) => clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: TARGET.kind, metadata: { name, namespace } })));
    for (const name of names) {
      const attachment = await eventually(() => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-att` }), `${name}-att`);
      const target = await clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: TARGET.kind, namespace, name });
      const bucket = bucketOf(target!.metadata.uid!, BUCKETS);
      expect(target?.metadata.labels?.[SHARD_LABEL]).toBe(String(bucket));
      expect(attachment.metadata.labels?.[SHARD_LABEL]).toBe(String(bucket));
      expect(writersOf(name)).toEqual([split.get(bucket)]);
    }
  });
});
