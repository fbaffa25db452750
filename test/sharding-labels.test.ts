/**
 * `--shards` with labels that an object's author chose (issue 24, finding 5): the watches select on
 * `loom.dev/shard`, but an object belongs to the holder of its UID's bucket (a child: its controller's).
 * Two live replicas; a parent and a decorator target created with the label of a bucket the *other*
 * replica holds, or with a value that names no bucket, are reconciled all the same; a child whose
 * label is changed to the other replica's bucket comes back into its parent's holder's cache and is
 * kept in line. Prints how long each took.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { bucketOf, SHARD_LABEL } from '../src/core/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { LIVE_MEMBER_LEASE_MS, whenSplit } from './support/shard-leases.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'shard-labels';
const KIND = TEST_PARENT_KINDS.shardLabelled;
const TARGET = TEST_PARENT_KINDS.shardLabelledTarget;
const BUCKETS = 4;
const GROUP = 'loom-shard-labels-test';
const REPLICAS = ['replica-a', 'replica-b'] as const;
/** Generous: a correction is one watch event and one write; this only bounds a broken run. */
const WAIT_MS = 60_000;
let clients: TestClients;
let hook: FastifyInstance;
let namespace: string;
let holders: Map<number, string>;
const replicas: TestLoom[] = [];
/** Every write each replica made: method and path. */
const writes: { replica: string; method: string; path: string }[] = [];

const ref = (kind: { kind: string }, name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind: kind.kind, namespace, name });
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });

/** A bucket `identity` holds, as a label value. */
function bucketHeldBy(identity: string): string {
  return String([...holders].find(([, holder]) => holder === identity)![0]);
}

/**
 * Creates objects named `<prefix><i>` labelled `label` until one's UID puts it in a bucket `owner`
 * holds (the UID, and so the bucket, is known only once the object exists); returns it. The others
 * are deleted.
 */
async function createOwnedBy(kind: { kind: string }, { prefix, label, owner, spec = {} }: { prefix: string; label: string; owner: string; spec?: object }): Promise<KubeObject> {
  for (let i = 0; ; i++) {
    const obj = await clients.writer.create({ apiVersion: `${TEST_GROUP}/v1`, kind: kind.kind, metadata: { name: `${prefix}${i}`, namespace, labels: { [SHARD_LABEL]: label } }, spec });
    if (holders.get(bucketOf(obj.metadata.uid!, BUCKETS)) === owner) return obj;
    await clients.writer.delete(ref(kind, obj.metadata.name!), { uid: obj.metadata.uid });
  }
}

const dataOf = (obj: KubeObject | undefined): Record<string, string> => (obj?.data ?? {}) as Record<string, string>;

/** Sets one label of `target` as its author would (a merge patch, an `Update` of the test's own). */
async function setLabel(path: string, value: string): Promise<void> {
  await clients.client.request({ method: 'PATCH', path, contentType: 'application/merge-patch+json', body: { metadata: { labels: { [SHARD_LABEL]: value } } } });
}

/** Resolves (with the time it took, in ms) once `probe` holds. */
async function timed(probe: () => Promise<boolean>, what: string): Promise<number> {
  const start = performance.now();
  await eventually(async () => ((await probe()) ? true : undefined), what, WAIT_MS);
  return Math.round(performance.now() - start);
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  await createParentCrd(clients, TARGET);
  hook = Fastify();
  hook.post('/sync', (req) => {
    const { parent } = req.body as { parent: KubeObject & { spec?: { value?: number } } };
    return { children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-child` }, data: { value: String(parent.spec?.value ?? 0) } }] };
  });
  hook.post('/decorate', (req) => {
    const { object } = req.body as { object: KubeObject };
    return { attachments: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${object.metadata.name}-att` } }] };
  });
  const base = await hook.listen({ host: '127.0.0.1', port: 0 });
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'shard-labels-controller', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { webhook: { url: `${base}/sync` } } },
    },
  });
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController',
    metadata: { name: 'shard-labels-decorator', labels: { 'loom-test': LABEL } },
    spec: {
      resources: [{ apiVersion: `${TEST_GROUP}/v1`, resource: TARGET.plural }],
      attachments: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { webhook: { url: `${base}/decorate` } } },
    },
  });
  for (const identity of REPLICAS) {
    const sharding = { namespace, group: GROUP, identity, buckets: BUCKETS, leaseDurationMs: LIVE_MEMBER_LEASE_MS };
    replicas.push(await startTestLoom(LABEL, { sharding }, ({ method, path }) => {
      if (method !== 'GET') writes.push({ replica: identity, method, path });
    }));
  }
  holders = await whenSplit({ client: clients.client, namespace, group: GROUP, buckets: BUCKETS }, (counts) => counts.get('replica-a') === 2 && counts.get('replica-b') === 2, 'two and two');
}, 120_000);

afterAll(async () => {
  for (const replica of replicas) await replica.stop();
  await hook?.close();
});

describe('shard labels an author set', () => {
  it('hide no parent: one labelled with the other replica\'s bucket, or with a value that names none, gets its children', async () => {
    const theirs = await createOwnedBy(KIND, { prefix: 'theirs-', label: bucketHeldBy('replica-b'), owner: 'replica-a' });
    const garbage = await createOwnedBy(KIND, { prefix: 'garbage-', label: 'not-a-bucket', owner: 'replica-a' });
    const outOfRange = await createOwnedBy(KIND, { prefix: 'far-', label: String(BUCKETS + 95), owner: 'replica-b' });
    for (const parent of [theirs, garbage, outOfRange]) {
      const name = parent.metadata.name!;
      const ms = await timed(async () => (await clients.writer.get(configMap(`${name}-child`))) !== undefined, `the child of ${name}`);
      const now = await clients.writer.get(ref(KIND, name));
      const bucket = bucketOf(parent.metadata.uid!, BUCKETS);
      expect(now?.metadata.labels?.[SHARD_LABEL]).toBe(String(bucket));
      // Its children are written by the holder of its bucket only.
      expect(new Set(writes.filter((w) => w.path.endsWith(`/configmaps/${name}-child`)).map((w) => w.replica))).toEqual(new Set([holders.get(bucket)]));
      console.log(`parent labelled ${JSON.stringify(parent.metadata.labels?.[SHARD_LABEL])} (bucket ${bucket}): child after ${ms} ms`);
    }
    // The label naming replica-b's bucket was corrected by replica-b, the only replica its watch reached.
    const corrections = writes.filter((w) => w.replica === 'replica-b' && w.method === 'PATCH' && w.path.endsWith(`/${KIND.plural}/${theirs.metadata.name}`));
    expect(corrections.length).toBeGreaterThan(0);
    console.log(`writes by replica-b to correct ${theirs.metadata.name}: ${corrections.length}`);
  }, 120_000);

  it('hide no decorator target: one labelled with the other replica\'s bucket gets its attachment', async () => {
    const theirs = await createOwnedBy(TARGET, { prefix: 'target-', label: bucketHeldBy('replica-a'), owner: 'replica-b' });
    const garbage = await createOwnedBy(TARGET, { prefix: 'target-garbage-', label: 'nobody', owner: 'replica-b' });
    for (const target of [theirs, garbage]) {
      const name = target.metadata.name!;
      const ms = await timed(async () => (await clients.writer.get(configMap(`${name}-att`))) !== undefined, `the attachment of ${name}`);
      expect((await clients.writer.get(ref(TARGET, name)))?.metadata.labels?.[SHARD_LABEL]).toBe(String(bucketOf(target.metadata.uid!, BUCKETS)));
      console.log(`target labelled ${JSON.stringify(target.metadata.labels?.[SHARD_LABEL])}: attachment after ${ms} ms`);
    }
  }, 120_000);

  it('hide no child: one relabelled with the other replica\'s bucket is seen again by its parent\'s holder and kept in line', async () => {
    const parent = await createOwnedBy(KIND, { prefix: 'keeper-', label: bucketHeldBy('replica-a'), owner: 'replica-a', spec: { value: 1 } });
    const name = parent.metadata.name!;
    const bucket = String(bucketOf(parent.metadata.uid!, BUCKETS));
    await eventually(async () => dataOf(await clients.writer.get(configMap(`${name}-child`))).value === '1' || undefined, `the child of ${name}`, WAIT_MS);
    await setLabel(`/api/v1/namespaces/${namespace}/configmaps/${name}-child`, bucketHeldBy('replica-b'));
    await clients.client.request({ method: 'PATCH', path: `/apis/${TEST_GROUP}/v1/namespaces/${namespace}/${KIND.plural}/${name}`, contentType: 'application/merge-patch+json', body: { spec: { value: 2 } } });
    const ms = await timed(async () => {
      const child = await clients.writer.get(configMap(`${name}-child`));
      return dataOf(child).value === '2' && child?.metadata.labels?.[SHARD_LABEL] === bucket;
    }, `the relabelled child of ${name} to be corrected and updated`);
    console.log(`child relabelled to replica-b's bucket: corrected and updated after ${ms} ms`);
    const corrections = writes.filter((w) => w.replica === 'replica-b' && w.method === 'PATCH' && w.path.endsWith(`/configmaps/${name}-child`));
    expect(corrections.length).toBeGreaterThan(0);
    console.log(`writes by replica-b to correct ${name}-child: ${corrections.length}`);
  }, 120_000);
});
