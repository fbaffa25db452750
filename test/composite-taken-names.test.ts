/**
 * A desired child whose name an object loom may not claim already holds, in both apply strategies, on
 * the real control plane: the create is refused and the object is left exactly as it was (no data,
 * labels or owner reference of the parent), the parent's sync fails with a `SyncError` naming it, the
 * parent's other children are still created, and deleting the parent does not garbage-collect it.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { eventuallyGone, objectWhen, syncErrorMessages } from './support/shelf.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'taken-names';
const PARENT = TEST_PARENT_KINDS.takenName;
const MODES = [
  { mode: 'ssa', applyStrategy: 'server-side-apply' },
  { mode: 'dynamic', applyStrategy: 'dynamic-apply' },
] as const;
type Mode = (typeof MODES)[number]['mode'];

interface HookRequest {
  parent: KubeObject & { spec: { selector: { matchLabels: Record<string, string> }; wants: string[] } };
}

let clients: TestClients;
const hosts: TestLoom[] = [];
let hook: FastifyInstance;
let namespace: string;

/** One ConfigMap per name in `spec.wants`, labelled to match the parent's selector. */
function sync({ parent }: HookRequest) {
  const { selector, wants } = parent.spec;
  return {
    status: {},
    children: wants.map((name) => ({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: selector.matchLabels }, data: { owner: parent.metadata.name! },
    })),
  };
}

/** One controller per mode; it takes the parents labelled `mode: <mode>`. */
function controller(mode: Mode, url: string): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: `${LABEL}-${mode}`, labels: { 'loom-test': `${LABEL}-${mode}` } },
    spec: {
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: PARENT.plural, labelSelector: { matchLabels: { mode } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { webhook: { url } } },
    },
  };
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, PARENT);
  hook = Fastify();
  hook.post('/sync', (request) => sync(request.body as HookRequest));
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  for (const { mode, applyStrategy } of MODES) {
    hosts.push(await startTestLoom(`${LABEL}-${mode}`, { applyStrategy }));
    await clients.apply(controller(mode, url));
  }
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.stop()));
  await hook?.close();
});

const configMapRef = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const readConfigMap = (name: string) => clients.writer.get(configMapRef(name));
const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, namespace, name });

/** What must not change about an object loom may not claim. */
const untouched = (obj: KubeObject | undefined) => ({
  uid: obj?.metadata.uid, resourceVersion: obj?.metadata.resourceVersion, labels: obj?.metadata.labels,
  ownerReferences: obj?.metadata.ownerReferences, annotations: obj?.metadata.annotations, data: obj?.data,
});

/** Waits until the parent's `SyncError` events, taken together, contain every one of `parts`. */
const syncErrorsNaming = (parent: string, parts: string[]): Promise<string[]> =>
  eventually(async () => {
    const messages = await syncErrorMessages(clients, { kind: PARENT.kind, name: parent });
    return parts.every((part) => messages.some((m) => m.includes(part))) ? messages : undefined;
  }, `SyncError events on ${parent} naming ${parts.join(' and ')}`);

describe.each(MODES)('a desired child whose name is taken ($applyStrategy)', ({ mode }) => {
  it('leaves the object alone, fails the sync naming it, and keeps it when the parent goes', async () => {
    // An orphan that does not match the parent's selector, and a matching object another controller owns.
    await clients.writer.create({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${mode}-stray`, namespace, labels: { stray: 'yes' } }, data: { keep: 'me' },
    });
    const owner = await clients.writer.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${mode}-owner`, namespace }, data: {} });
    await clients.writer.create({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: {
        name: `${mode}-taken`, namespace, labels: { taken: mode },
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: `${mode}-owner`, uid: owner.metadata.uid!, controller: true }],
      },
      data: { keep: 'me too' },
    });
    const before = { stray: untouched(await readConfigMap(`${mode}-stray`)), taken: untouched(await readConfigMap(`${mode}-taken`)) };

    const parentName = `${mode}-parent`;
    const parent = await clients.apply({
      apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, metadata: { name: parentName, namespace, labels: { mode } },
      spec: { selector: { matchLabels: { taken: mode } }, wants: [`${mode}-stray`, `${mode}-taken`, `${mode}-fresh`] },
    });
    // The children are written in desired order: once the last one exists, the other two were attempted.
    const fresh = await objectWhen(() => readConfigMap(`${mode}-fresh`), (c) => c.metadata.ownerReferences?.[0]?.uid === parent.metadata.uid, 'the free child to be created');
    expect(fresh.data).toEqual({ owner: parentName });
    expect(untouched(await readConfigMap(`${mode}-stray`))).toEqual(before.stray);
    expect(untouched(await readConfigMap(`${mode}-taken`))).toEqual(before.taken);

    const messages = await syncErrorsNaming(parentName, [
      `ConfigMap ${namespace}/${mode}-stray already exists and has no controller and does not match the selector taken=${mode}`,
      `ConfigMap ${namespace}/${mode}-taken already exists and is not controlled by this parent (controller: ConfigMap ${mode}-owner)`,
    ]);
    expect(messages.length).toBeGreaterThan(0);
    expect(untouched(await readConfigMap(`${mode}-stray`))).toEqual(before.stray);
    expect(untouched(await readConfigMap(`${mode}-taken`))).toEqual(before.taken);

    // The garbage collector takes the parent's own child, and only that.
    await clients.writer.delete(parentRef(parentName));
    await eventuallyGone(() => readConfigMap(`${mode}-fresh`), 'the parent\'s own child to be garbage-collected');
    expect(untouched(await readConfigMap(`${mode}-stray`))).toEqual(before.stray);
    expect(untouched(await readConfigMap(`${mode}-taken`))).toEqual(before.taken);
  });
});
