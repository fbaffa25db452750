/**
 * The controller object's `SyncsFailing` condition (docs/controller-status.md) on the real control
 * plane: a JSONata controller whose expression answers an undeclared child kind for one parent gets
 * `SyncsFailing=True` counting that parent, with its error, while `Ready` stays `True` (it runs). The
 * parent failing again and again, and the other parent syncing, write nothing more on the controller
 * object (the watch on it proves it). Fixing the parent clears the condition; so does deleting one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { readyCondition, startTestLoom, testClients, type ControllerCondition, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';
import { recordWatches } from './support/watch-record.ts';

const LABEL = 'syncs-failing';
const KIND = TEST_PARENT_KINDS.syncsFailing;
const NAME = 'syncs-failing';
let clients: TestClients;
let loom: TestLoom;
let namespace: string;

/** A ConfigMap per parent; a parent with `spec.bad` gets a Secret, which the controller does not declare, named after its `poke`. */
const EXPRESSION = `{
  "children": [
    parent.spec.bad = true
      ? { "apiVersion": "v1", "kind": "Secret", "metadata": { "name": parent.metadata.name & "-" & parent.spec.poke } }
      : { "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name }, "data": { "poke": parent.spec.poke } }
  ]
}`;

const CONTROLLER: KubeObject = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name: NAME, labels: { 'loom-test': LABEL } },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
    childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
    hooks: { sync: { jsonata: { expression: EXPRESSION } } },
  },
};

const applyParent = (name: string, spec: { bad: boolean; poke: string }) =>
  clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace }, spec });

interface ControllerStatus {
  conditions?: (ControllerCondition & { lastTransitionTime?: string })[];
  failingParents?: number;
  syncFailures?: Record<string, { parents: number; lastError: string }>;
}

async function statusOf(): Promise<ControllerStatus> {
  const obj = await clients.writer.get({ apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', name: NAME });
  return (obj?.status ?? {});
}

/** The `SyncsFailing` condition and the count, once the condition has `status`. */
async function syncsFailing(status: 'True' | 'False') {
  return eventually(async () => {
    const s = await statusOf();
    const condition = s.conditions?.find((c) => c.type === 'SyncsFailing');
    return condition?.status === status ? { condition, count: s.failingParents, shares: s.syncFailures } : undefined;
  }, `SyncsFailing=${status}`);
}

/** Waits for a `SyncError` event on parent `name` whose message names `text`: proof that a sync of it ran and failed. */
async function syncErrorNaming(name: string, text: string): Promise<void> {
  await eventually(async () => {
    const list = await clients.client.request<{ items: { reason: string; message: string }[] }>({
      method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, query: { fieldSelector: `involvedObject.name=${name}` },
    });
    return list.items.some((e) => e.reason === 'SyncError' && e.message.includes(text)) || undefined;
  }, `a SyncError naming ${text}`);
}

const configMapPoke = async (name: string) =>
  ((await clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name }))?.data as { poke?: string } | undefined)?.poke;

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  loom = await startTestLoom(LABEL);
});

afterAll(async () => {
  await loom?.stop();
});

describe('the SyncsFailing condition of a controller', () => {
  it('counts the parent whose syncs fail, with the error, writes nothing more while that stays so, and clears when it is fixed or deleted', async () => {
    await clients.apply(CONTROLLER);
    await applyParent('good', { bad: false, poke: 'p0' });
    await applyParent('bad', { bad: true, poke: 'p0' });

    const failing = await syncsFailing('True');
    expect(failing.count).toBe(1);
    expect(failing.condition.reason).toBe('SyncErrors');
    expect(failing.condition.message).toBe(
      `1 parent's last sync failed; latest: ${namespace}/bad: the sync hook's children are invalid: desired child Secret bad-p0 has type Secret.v1, which is not a declared child resource (declared: ConfigMap.v1)`,
    );
    expect(failing.shares).toEqual({ all: expect.objectContaining({ parents: 1 }) as unknown });
    // Ready is about the controller running, which it does.
    expect(await readyCondition(clients, NAME)).toMatchObject({ status: 'True' });

    // More syncs, failing and succeeding, with the set of failing parents the same: no write.
    const stop = new AbortController();
    const path = '/apis/metacontroller.k8s.io/v1alpha1/compositecontrollers';
    const recording = recordWatches(clients.client, [path], stop.signal);
    await recording.established;
    try {
      for (const poke of ['p1', 'p2', 'p3']) {
        await applyParent('bad', { bad: true, poke });
        await applyParent('good', { bad: false, poke });
        await syncErrorNaming('bad', `bad-${poke}`);
        await eventually(async () => ((await configMapPoke('good')) === poke ? true : undefined), `the good parent synced with ${poke}`);
      }
    } finally {
      stop.abort();
    }
    // The watch starts with the current object (ADDED); a write would show as MODIFIED.
    const writes = recording.seen.filter((e) => e.object.metadata.name === NAME && e.type === 'MODIFIED');
    expect(writes.map((e) => e.object.metadata.resourceVersion)).toEqual([]);

    await applyParent('bad', { bad: false, poke: 'fixed' });
    const fixed = await syncsFailing('False');
    expect(fixed.condition).toMatchObject({ reason: 'NoSyncErrors', message: "no parent's last sync failed" });
    expect(fixed.count).toBe(0);
    expect(fixed.shares).toEqual({});

    await applyParent('bad', { bad: true, poke: 'again' });
    expect((await syncsFailing('True')).count).toBe(1);
    await clients.writer.delete({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, namespace, name: 'bad' });
    expect((await syncsFailing('False')).count).toBe(0);
  });
});
