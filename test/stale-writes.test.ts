/**
 * Stale writes stop (docs/running-loom.md, "Stopping"): a sync with thousands of children (or
 * attachments) to write stops between writes when its controller is deleted or changed, when its
 * parent is deleted, or when the parent's spec moves on, on the real control plane. The client rate limit is low, so a sync that ran
 * to its end would take minutes; each case waits for a state the old behaviour could reach only after
 * that (a second controller for the same parents starting, another parent synced by the only worker,
 * the parent converged to its new spec) and then checks that the stale sync wrote no more, and fewer
 * than all its children. The waits are bounds for a hung test, not the test: a sync run to its end
 * reaches each state too, and is told apart by its count of writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { readyCondition, startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'stop';
const KIND = TEST_PARENT_KINDS.stopping;
/** Children the stale answers ask for: at the test's rate limit, minutes of writes. */
const MANY = 3_000;
/** Many times what a state that follows a stop takes on a busy machine. */
const STATE_TIMEOUT_MS = 120_000;
/** Each case waits for a few states of STATE_TIMEOUT_MS at most (a bound for a hung case). */
const CASE_TIMEOUT_MS = 6 * STATE_TIMEOUT_MS;
let clients: TestClients;
let loom: TestLoom;
let namespace: string;

/** Every child write loom sent, by child name, with when its answer came. */
const writes: { name: string; method: string; at: number }[] = [];
const writesOf = (prefix: string) => writes.filter((w) => w.name.startsWith(prefix) && w.method !== 'DELETE');

/** `spec.count` ConfigMaps named `<parent>-<spec.tag>-<i>`; the status names the tag it answered for. */
const CHILDREN = `{
  "children": [[1..$$.parent.spec.count].{
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": { "name": $$.parent.metadata.name & "-" & $$.parent.spec.tag & "-" & $string($) },
    "data": { "i": $string($) }
  }],
  "status": { "tag": parent.spec.tag }
}`;

function controller(name: string, kase: string, expression = CHILDREN): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name, labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { case: kase } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { jsonata: { expression } } },
    },
  };
}

/** `MANY` attachments per target; with `fixed`, one other instead. */
function decorator(fixed: boolean): KubeObject {
  const expression = fixed
    ? '{ "attachments": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": object.metadata.name & "-fixed" } }] }'
    : `{ "attachments": [[1..${MANY}].{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": $$.object.metadata.name & "-att-" & $string($) } }] }`;
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController',
    metadata: { name: 'stop-decorator', labels: { 'loom-test': LABEL } },
    spec: {
      resources: [{ apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { case: 'decorated' } } }],
      attachments: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { jsonata: { expression } } },
    },
  };
}

const parent = (name: string, kase: string, spec: { count: number; tag: string }): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels: { case: kase } }, spec });
const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, namespace, name });
const configMap = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const controllerRef = (name: string) => ({ apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', name });
const atLeast = (prefix: string, n: number) => () => Promise.resolve(writesOf(prefix).length >= n ? true : undefined);

/** How long after `since` the last write of `prefix` came, for the report. */
function lastWriteAfter(prefix: string, since: number): number {
  return Math.max(0, ...writesOf(prefix).map((w) => w.at - since));
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  // One worker: a sync that does not stop keeps every other parent of its controller waiting.
  loom = await startTestLoom(LABEL, { workers: 1, clientQps: 20, clientBurst: 20 }, ({ method, path }) => {
    const child = new RegExp(`/namespaces/${namespace}/configmaps/([^/?]+)`).exec(path);
    if (child && method !== 'GET') writes.push({ name: child[1]!, method, at: systemClock.now() });
  });
});

afterAll(async () => {
  await loom?.stop();
}, STATE_TIMEOUT_MS);

describe('a sync whose answer goes stale stops writing', () => {
  it('when its CompositeController is deleted: the writes stop and a new controller for the same parents starts', async () => {
    await clients.apply(controller('stop-old', 'delete'));
    await eventually(async () => ((await readyCondition(clients, 'stop-old'))?.status === 'True' ? true : undefined), 'stop-old Ready', STATE_TIMEOUT_MS);
    await clients.apply(parent('p1', 'delete', { count: MANY, tag: 'old' }));
    await eventually(atLeast('p1-old-', 20), 'the old controller writing children', STATE_TIMEOUT_MS);
    // The new controller waits for the old one's parents while it runs.
    await clients.apply(controller('stop-new', 'delete', '{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-new" } }] }'));
    await eventually(async () => ((await readyCondition(clients, 'stop-new'))?.reason === 'ParentTypeTaken' ? true : undefined), 'stop-new refused', STATE_TIMEOUT_MS);

    const deletedAt = systemClock.now();
    await clients.writer.delete(controllerRef('stop-old'));
    await eventually(async () => ((await readyCondition(clients, 'stop-new'))?.status === 'True' ? true : undefined), 'stop-new Ready once stop-old stopped', STATE_TIMEOUT_MS);
    const written = writesOf('p1-old-').length;
    await eventually(() => configMap('p1-new'), 'stop-new syncing the parent', STATE_TIMEOUT_MS);

    expect(writesOf('p1-old-')).toHaveLength(written);
    expect(written).toBeLessThan(MANY);
    console.log(`[stop] controller deleted: last old write ${lastWriteAfter('p1-old-', deletedAt)} ms after the delete; ${written} of ${MANY} writes made`);
  }, CASE_TIMEOUT_MS);

  it('when its parent is deleted: the only worker is free again for another parent', async () => {
    await clients.apply(controller('stop-parent', 'parent'));
    await clients.apply(parent('p2', 'parent', { count: MANY, tag: 'doomed' }));
    await eventually(atLeast('p2-doomed-', 20), 'children of p2 being written', STATE_TIMEOUT_MS);

    const deletedAt = systemClock.now();
    await clients.writer.delete(parentRef('p2'));
    await clients.apply(parent('p3', 'parent', { count: 1, tag: 'next' }));
    await eventually(() => configMap('p3-next-1'), 'p3 synced by the worker p2 held', STATE_TIMEOUT_MS);

    const written = writesOf('p2-doomed-').length;
    expect(written).toBeLessThan(MANY);
    console.log(`[stop] parent deleted: last write ${lastWriteAfter('p2-doomed-', deletedAt)} ms after the delete; ${written} of ${MANY} writes made`);
  }, CASE_TIMEOUT_MS);

  it("when its parent's spec changes: the newer spec is synced instead, and the parent's status never names the stale answer's plan as done", async () => {
    await clients.apply(controller('stop-spec', 'spec'));
    await clients.apply(parent('p4', 'spec', { count: MANY, tag: 'v1' }));
    await eventually(atLeast('p4-v1-', 20), 'children of the first spec being written', STATE_TIMEOUT_MS);

    const changedAt = systemClock.now();
    await clients.apply(parent('p4', 'spec', { count: 3, tag: 'v2' }));
    const converged = await eventually(async () => {
      const current = await clients.writer.get(parentRef('p4'));
      const status = current?.status as { tag?: string; observedGeneration?: number } | undefined;
      return status?.tag === 'v2' && status.observedGeneration === current?.metadata.generation ? current : undefined;
    }, 'the parent converged to its new spec', STATE_TIMEOUT_MS);
    expect(converged.metadata.generation).toBe(2);
    for (const i of [1, 2, 3]) expect(await configMap(`p4-v2-${i}`)).toBeDefined();
    // The stale answer's children are gone again, deleted by the sync of the new spec (not by the stop).
    await eventually(async () => {
      const left = await Promise.all(writesOf('p4-v1-').map((w) => configMap(w.name)));
      return left.every((cm) => cm === undefined || cm.metadata.deletionTimestamp !== undefined) ? true : undefined;
    }, 'the first spec\'s children deleted', STATE_TIMEOUT_MS);

    const written = new Set(writesOf('p4-v1-').map((w) => w.name)).size;
    expect(written).toBeLessThan(MANY);
    console.log(`[stop] spec changed: last stale write ${lastWriteAfter('p4-v1-', changedAt)} ms after the change; ${written} of ${MANY} writes made`);
  }, CASE_TIMEOUT_MS);

  it("when its DecoratorController's spec changes: the old answer's attachment writes stop and the new spec is synced", async () => {
    await clients.apply(decorator(false));
    await clients.apply(parent('p5', 'decorated', { count: 0, tag: 'none' }));
    await eventually(atLeast('p5-att-', 20), 'attachments being written', STATE_TIMEOUT_MS);

    const changedAt = systemClock.now();
    await clients.apply(decorator(true));
    await eventually(() => configMap('p5-fixed'), 'the target synced by the changed decorator', STATE_TIMEOUT_MS);
    const written = writesOf('p5-att-').length;
    // The old answer's attachments are deleted by the new spec's sync (not by the stop), and no more are written.
    await eventually(async () => {
      const left = await Promise.all(writesOf('p5-att-').map((w) => configMap(w.name)));
      return left.every((cm) => cm === undefined || cm.metadata.deletionTimestamp !== undefined) ? true : undefined;
    }, 'the old attachments deleted', STATE_TIMEOUT_MS);

    expect(writesOf('p5-att-')).toHaveLength(written);
    expect(written).toBeLessThan(MANY);
    console.log(`[stop] decorator changed: last stale write ${lastWriteAfter('p5-att-', changedAt)} ms after the change; ${written} of ${MANY} writes made`);
  }, CASE_TIMEOUT_MS);
});
