/**
 * Child update methods (docs/concepts.md, "Update methods") in both apply strategies
 * ("Applying children") against the real control plane: `OnDelete` never touches an existing child,
 * `Recreate` replaces it with a new object (and keeps it when the API server rejects the desired state),
 * `InPlace` updates the same object, keeping fields others set.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { syncErrorMessages } from './support/shelf.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'strategies';
const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';
const { kind, plural } = TEST_PARENT_KINDS.dynamicPaint;
const MODES = [
  { mode: 'ssa', applyStrategy: 'server-side-apply' },
  { mode: 'dynamic', applyStrategy: 'dynamic-apply' },
] as const;
const METHODS = ['OnDelete', 'Recreate', 'InPlace'] as const;
type Mode = (typeof MODES)[number]['mode'];
type Method = (typeof METHODS)[number];

interface SyncRequest {
  /** A colour that is not a string makes a ConfigMap the API server rejects; `immutable` makes its data unchangeable in place. */
  parent: KubeObject & { spec: { color: string | number; immutable?: boolean } };
}

let clients: TestClients;
const hosts: TestLoom[] = [];
let hook: FastifyInstance;
let namespace: string;

/** One ConfigMap per parent carrying the parent's colour; the status echoes the colour. */
function sync({ parent }: SyncRequest) {
  const name = parent.metadata.name!;
  const { color, immutable } = parent.spec;
  return {
    status: { color },
    children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-config`, labels: { paint: name } }, data: { color }, ...(immutable ? { immutable } : {}) }],
  };
}

/** One controller per mode and method; it takes the parents labelled `strategy: <mode>-<method>`. */
function controller(mode: Mode, method: Method, url: string): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: `${LABEL}-${mode}-${method.toLowerCase()}`, labels: { 'loom-test': `${LABEL}-${mode}` } },
    spec: {
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: plural, labelSelector: { matchLabels: { strategy: `${mode}-${method}` } } },
      // OnDelete is what a rule without updateStrategy gets.
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', ...(method === 'OnDelete' ? {} : { updateStrategy: { method } }) }],
      hooks: { sync: { webhook: { url } } },
    },
  };
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, TEST_PARENT_KINDS.dynamicPaint);
  hook = Fastify();
  hook.post('/sync', (request) => sync(request.body as SyncRequest));
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  for (const { mode, applyStrategy } of MODES) {
    hosts.push(await startTestLoom(`${LABEL}-${mode}`, { applyStrategy }));
    for (const method of METHODS) await clients.apply(controller(mode, method, url));
  }
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.stop()));
  await hook?.close();
});

const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind, namespace, name });
const childRef = (parent: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${parent}-config` });
const colorOf = (obj: KubeObject | undefined, field: 'data' | 'status'): string | undefined =>
  (obj?.[field] as { color?: string } | undefined)?.color;

function applyParent(name: string, strategy: string, color: string | number, immutable = false): Promise<KubeObject> {
  return clients.apply({
    ...parentRef(name),
    metadata: { name, namespace, labels: { strategy } },
    spec: { selector: { matchLabels: { paint: name } }, color, immutable },
  });
}

/** The child, once it exists with `color` and (optionally) a UID other than `notUid`. */
function childWith(parent: string, color: string, notUid?: string): Promise<KubeObject> {
  return eventually(async () => {
    const child = await clients.writer.get(childRef(parent));
    return child && colorOf(child, 'data') === color && child.metadata.uid !== notUid ? child : undefined;
  }, `child of ${parent} with colour ${color}${notUid ? ' and a new UID' : ''}`);
}

/** Waits for the status of `color`: the sync that wrote it has already dealt with the children. */
async function statusShows(parent: string, color: string): Promise<void> {
  await eventually(async () => colorOf(await clients.writer.get(parentRef(parent)), 'status') === color || undefined, `status of ${parent} showing ${color}`);
}

/** Creates parent `name` in red, waits for its child, then turns it blue; returns the red child. */
async function redThenBlue(name: string, strategy: string, beforeBlue?: (child: KubeObject) => Promise<void>): Promise<KubeObject> {
  await applyParent(name, strategy, 'red');
  const red = await childWith(name, 'red');
  await beforeBlue?.(red);
  await applyParent(name, strategy, 'blue');
  return red;
}

/** The desired object recorded in the dynamic-apply annotation. */
function lastApplied(child: KubeObject): { data?: unknown } {
  const text = child.metadata.annotations?.[LAST_APPLIED];
  expect(text, `${LAST_APPLIED} on ${child.metadata.name}`).toBeDefined();
  return JSON.parse(text!) as { data?: unknown };
}

describe.each(MODES)('update methods with $applyStrategy', ({ mode }) => {
  const strategy = (method: Method) => `${mode}-${method}`;

  it('OnDelete never changes an existing child, but recreates it once deleted', async () => {
    const name = `${mode}-ondelete`;
    const red = await redThenBlue(name, strategy('OnDelete'));
    await statusShows(name, 'blue');
    const kept = await clients.writer.get(childRef(name));
    expect(kept?.metadata.uid).toBe(red.metadata.uid);
    expect(kept?.metadata.resourceVersion).toBe(red.metadata.resourceVersion);
    expect(kept?.data).toEqual({ color: 'red' });
    await clients.writer.delete(childRef(name), { uid: red.metadata.uid });
    const recreated = await childWith(name, 'blue', red.metadata.uid);
    expect(recreated.metadata.ownerReferences?.[0]?.kind).toBe(kind);
  });

  it('Recreate deletes the out-of-date child and creates it anew', async () => {
    const name = `${mode}-recreate`;
    const red = await redThenBlue(name, strategy('Recreate'));
    const blue = await childWith(name, 'blue', red.metadata.uid);
    expect(blue.metadata.ownerReferences?.map((ref) => ref.name)).toEqual([name]);
    await statusShows(name, 'blue');
  });

  it('Recreate keeps the child when the desired state is invalid: SyncError, nothing deleted', async () => {
    const name = `${mode}-recreate-invalid`;
    await applyParent(name, strategy('Recreate'), 'red');
    const red = await childWith(name, 'red');
    // ConfigMap data values must be strings: the dry run is refused, so the red child must stay.
    await applyParent(name, strategy('Recreate'), 7);
    const messages = await syncErrorMessages(clients, { kind, name });
    // Server-side apply's dry run answers 500 for the wrong type; the dry-run create, 400.
    expect(messages.join('\n')).toMatch(/desired ConfigMap \S+-config failed.*, so the old one was kept: .*(expected string|cannot unmarshal number)/);
    const kept = await clients.writer.get(childRef(name));
    expect(kept?.metadata.uid).toBe(red.metadata.uid);
    expect(kept?.data).toEqual({ color: 'red' });
  });

  it('Recreate replaces a child whose change cannot be made in place (an immutable ConfigMap)', async () => {
    const name = `${mode}-recreate-immutable`;
    await applyParent(name, strategy('Recreate'), 'red', true);
    const red = await childWith(name, 'red');
    expect(red.immutable).toBe(true);
    await applyParent(name, strategy('Recreate'), 'blue', true);
    const blue = await childWith(name, 'blue', red.metadata.uid);
    expect(blue.immutable).toBe(true);
  });

  it('InPlace updates the same child and keeps the fields others set', async () => {
    const name = `${mode}-inplace`;
    const red = await redThenBlue(name, strategy('InPlace'), async (child) => {
      expect(child.metadata.labels).toEqual({ paint: name });
      // Someone else (the test) labels the child; an update must keep the label.
      const touched = await clients.writer.patchJson(childRef(name), [{ op: 'add', path: '/metadata/labels/touched-by', value: 'test' }]);
      expect(touched.metadata.labels).toEqual({ paint: name, 'touched-by': 'test' });
    });
    const blue = await childWith(name, 'blue');
    expect(blue.metadata.uid).toBe(red.metadata.uid);
    expect(blue.metadata.labels).toEqual({ paint: name, 'touched-by': 'test' });
    if (mode === 'dynamic') {
      expect(lastApplied(red).data).toEqual({ color: 'red' });
      expect(lastApplied(blue).data).toEqual({ color: 'blue' });
    } else {
      expect(blue.metadata.annotations?.[LAST_APPLIED]).toBeUndefined();
    }
  });
});
