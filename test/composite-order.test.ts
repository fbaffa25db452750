/**
 * Children in order on the real control plane (docs/ordering-and-readiness.md): waves and dependsOn
 * proven from watch events (no child of a wave appears before every child of the waves below is
 * ready), a held child named in the parent's Ready condition, deletes in reverse (of children the hook
 * drops, and with `orderedTeardown` of a deleted parent's), a dependsOn cycle refused before anything
 * is written, and children without order written as before. The CRD-backed
 * child starts with Ready=False (a status default) and is made ready by the test writing its status;
 * ConfigMaps are ready at once. Readiness in the checks is kstatus's, as loom judges it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { readinessOf } from '../src/core/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'order';
const PARENT = TEST_PARENT_KINDS.ordered;
const TEARDOWN_PARENT = TEST_PARENT_KINDS.orderedTeardown;
const CHILD = TEST_PARENT_KINDS.orderedChild;
let clients: TestClients;
let loom: TestLoom;
let namespace: string;

/**
 * `spec.mode` picks the children: `waves` (a and db in wave 0, b in wave 1, c in wave 2 depending on
 * b), `gone` (none), `cycle` (a and b depending on each other), `plain` (no loom annotations), `hold`
 * (low in wave 0, high in wave 1 with a finalizer of the test's), `hold-gone` (none, and the status
 * counts the children seen terminating, so the test knows a sync saw one).
 */
const HOOK = `(
  $n := parent.metadata.name;
  $cm := function($name, $ann) { { "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": $n & "-" & $name, "annotations": $ann }, "data": { "v": "1" } } };
  $db := { "apiVersion": "${TEST_GROUP}/v1", "kind": "${CHILD.kind}", "metadata": { "name": $n & "-db", "annotations": { "loom.dev/wave": "0" } }, "spec": { "size": 1 } };
  $mode := parent.spec.mode;
  $high := { "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": $n & "-high", "annotations": { "loom.dev/wave": "1" }, "finalizers": ["example.com/test-hold"] } };
  $mode = "hold-gone" ? { "children": [], "status": { "terminating": $count(children."ConfigMap.v1".*[$exists(metadata.deletionTimestamp)]) } } :
  {
    "children": $mode = "gone" ? [] :
      $mode = "hold" ? [$cm("low", { "loom.dev/wave": "0" }), $high] :
      $mode = "plain" ? [$cm("a"), $cm("b")] :
      $mode = "cycle" ? [$cm("a", { "loom.dev/depends-on": "ConfigMap/" & $n & "-b" }), $cm("b", { "loom.dev/depends-on": "ConfigMap/" & $n & "-a" })] :
      [$cm("a", { "loom.dev/wave": "0" }), $db, $cm("b", { "loom.dev/wave": "1" }), $cm("c", { "loom.dev/wave": "2", "loom.dev/depends-on": "ConfigMap/" & $n & "-b" })],
    "status": { "hook": "ok" }
  }
)`;

const controller: KubeObject = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name: 'order-waves', labels: { 'loom-test': LABEL } },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: PARENT.plural },
    childResources: [
      { apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } },
      { apiVersion: `${TEST_GROUP}/v1`, resource: CHILD.plural, updateStrategy: { method: 'InPlace' } },
    ],
    hooks: { sync: { jsonata: { expression: HOOK } } },
  },
};

/** The same controller over other parents, with `orderedTeardown`: deleting a parent deletes its children in reverse. */
const orderedTeardownController: KubeObject = {
  ...controller,
  metadata: { name: 'order-teardown', labels: { 'loom-test': LABEL } },
  spec: { ...controller.spec as object, parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: TEARDOWN_PARENT.plural }, orderedTeardown: true },
};

type ParentKind = typeof PARENT | typeof TEARDOWN_PARENT;
const parent = (name: string, mode: string, kind: ParentKind = PARENT): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: kind.kind, metadata: { name, namespace }, spec: { mode } });
const getParent = (name: string, kind: ParentKind = PARENT) => clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: kind.kind, namespace, name });
const configMap = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const db = (name: string) => clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: CHILD.kind, namespace, name });

interface Condition { type: string; status: string; reason?: string; message?: string; observedGeneration?: number }

/** The parent's Ready condition once `accept` takes it. */
function readyWhen(name: string, accept: (c: Condition) => boolean, what: string, kind: ParentKind = PARENT): Promise<Condition> {
  return eventually(async () => {
    const conditions = ((await getParent(name, kind))?.status as { conditions?: Condition[] } | undefined)?.conditions;
    const ready = conditions?.find((c) => c.type === 'Ready');
    return ready && accept(ready) ? ready : undefined;
  }, what);
}

/** One watch event of a child, in the order etcd made it (one etcd: resourceVersions are its revisions). */
interface Seen {
  type: string;
  name: string;
  revision: number;
  ready: boolean;
}

/** Records the watch events of the namespace's ConfigMaps and children until `stop` aborts. */
function recordEvents(stop: AbortSignal): { seen: Seen[]; established: Promise<void> } {
  const seen: Seen[] = [];
  const paths = [`/api/v1/namespaces/${namespace}/configmaps`, `/apis/${TEST_GROUP}/v1/namespaces/${namespace}/${CHILD.plural}`];
  const established = paths.map(async (path) => {
    let started: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (started = resolve));
    void (async () => {
      try {
        for await (const event of clients.client.watch(path, {}, stop, started)) {
          const obj = event.object as KubeObject;
          seen.push({ type: event.type, name: obj.metadata.name ?? '', revision: Number(obj.metadata.resourceVersion), ready: readinessOf(obj).status === 'Current' });
        }
      } catch {
        // The watch ends when the test aborts it.
      }
    })();
    await ready;
  });
  return { seen, established: Promise.all(established).then(() => undefined) };
}

/**
 * The appearances that broke the order: an object of `waves[i]` added while an object of a lower wave
 * was missing or not ready, judging each object by its last event before (by revision).
 */
function orderViolations(seen: readonly Seen[], waves: readonly string[][]): string[] {
  const events = [...seen].sort((a, b) => a.revision - b.revision);
  const state = new Map<string, Seen>();
  const violations: string[] = [];
  for (const event of events) {
    const wave = waves.findIndex((names) => names.includes(event.name));
    if (event.type === 'ADDED' && wave > 0) {
      const unready = waves.slice(0, wave).flat().filter((name) => !state.get(name)?.ready || state.get(name)?.type === 'DELETED');
      if (unready.length > 0) violations.push(`${event.name} appeared while ${unready.join(', ')} not ready`);
    }
    state.set(event.name, event);
  }
  return violations;
}

/** The deletions that broke the reverse order: an object of `waves` deleted while one of a higher wave still existed. */
function deleteViolations(seen: readonly Seen[], waves: readonly string[][]): string[] {
  const deleted = new Set<string>();
  const violations: string[] = [];
  for (const event of [...seen].sort((a, b) => a.revision - b.revision).filter((e) => e.type === 'DELETED')) {
    const wave = waves.findIndex((names) => names.includes(event.name));
    if (wave < 0) continue;
    const higher = waves.slice(wave + 1).flat().filter((name) => !deleted.has(name));
    if (higher.length > 0) violations.push(`${event.name} deleted while ${higher.join(', ')} existed`);
    deleted.add(event.name);
  }
  return violations;
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, PARENT);
  await createParentCrd(clients, TEARDOWN_PARENT);
  await createParentCrd(clients, CHILD);
  loom = await startTestLoom(LABEL);
  await clients.apply(controller);
  await clients.apply(orderedTeardownController);
});

afterAll(async () => {
  await loom?.stop();
});

describe('children in order', () => {
  it('writes wave after wave once the waves below are ready, names the held children, and deletes in reverse', async () => {
    const stop = new AbortController();
    const { seen, established } = recordEvents(stop.signal);
    await established;
    const waves = [['w-a', 'w-db'], ['w-b'], ['w-c']];
    try {
      await clients.apply(parent('w', 'waves'));
      const held = await readyWhen('w', (c) => c.reason === 'ChildrenHeld', 'Ready=False ChildrenHeld');
      expect(held).toMatchObject({ status: 'False', observedGeneration: 1 });
      expect(held.message).toContain(`ConfigMap ${namespace}/w-b waits for ${CHILD.kind} ${namespace}/w-db (InProgress: ${CHILD.kind}: Ready is False (Provisioning: waiting for the test))`);
      expect(await configMap('w-a')).toBeDefined();
      expect(await configMap('w-b')).toBeUndefined();
      expect(await configMap('w-c')).toBeUndefined();

      const child = await eventually(() => db('w-db'), 'the db child');
      await clients.writer.replaceStatus({ ...child, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Provisioned', message: 'up' }] } });
      expect(await readyWhen('w', (c) => c.status === 'True', 'Ready=True')).toMatchObject({ reason: 'ChildrenReady', message: '4 children are ready' });
      expect(await configMap('w-c')).toBeDefined();
      expect(orderViolations(seen, waves)).toEqual([]);
      expect(seen.filter((e) => e.type === 'ADDED').map((e) => e.name).sort()).toEqual(['w-a', 'w-b', 'w-c', 'w-db']);
      // Without orderedTeardown the garbage collector deletes the children of a deleted parent: no finalizer, no write for it.
      expect((await getParent('w'))?.metadata.finalizers ?? []).toEqual([]);

      await clients.apply(parent('w', 'gone'));
      await eventually(async () => (await configMap('w-a')) === undefined && (await db('w-db')) === undefined ? true : undefined, 'every child deleted');
      expect(deleteViolations(seen, waves)).toEqual([]);
      expect(seen.filter((e) => e.type === 'DELETED').map((e) => e.name).slice(0, 2)).toEqual(['w-c', 'w-b']);
    } finally {
      stop.abort();
    }
  });

  it('with orderedTeardown, deletes a deleted parent\'s children in reverse order before the parent goes', async () => {
    const stop = new AbortController();
    const { seen, established } = recordEvents(stop.signal);
    await established;
    const waves = [['t-a', 't-db'], ['t-b'], ['t-c']];
    try {
      await clients.apply(parent('t', 'waves', TEARDOWN_PARENT));
      const child = await eventually(() => db('t-db'), 'the db child');
      await clients.writer.replaceStatus({ ...child, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Provisioned', message: 'up' }] } });
      await readyWhen('t', (c) => c.status === 'True', 'Ready=True', TEARDOWN_PARENT);
      expect((await getParent('t', TEARDOWN_PARENT))?.metadata.finalizers).toEqual(['metacontroller.io/compositecontroller-order-teardown']);

      await clients.writer.delete({ apiVersion: `${TEST_GROUP}/v1`, kind: TEARDOWN_PARENT.kind, namespace, name: 't' });
      await eventually(async () => ((await getParent('t', TEARDOWN_PARENT)) ? undefined : true), 'the parent gone');
      await eventually(async () => ((await configMap('t-a')) === undefined && (await db('t-db')) === undefined) || undefined, 'every child deleted');
      expect(deleteViolations(seen, waves)).toEqual([]);
      expect(seen.filter((e) => e.type === 'DELETED' && e.name.startsWith('t-')).map((e) => e.name).slice(0, 2)).toEqual(['t-c', 't-b']);
    } finally {
      stop.abort();
    }
  });

  it('keeps a lower wave while a going child of a higher wave is terminating, and deletes it once that one is gone', async () => {
    await clients.apply(parent('h', 'hold'));
    await eventually(async () => ((await configMap('h-low')) && (await configMap('h-high'))) ?? undefined, 'both children');
    await clients.apply(parent('h', 'hold-gone'));
    // A sync that saw h-high terminating (held by the test's finalizer) has written its deletions by now.
    await eventually(async () => ((await getParent('h'))?.status as { terminating?: number } | undefined)?.terminating === 1 || undefined, 'a sync that saw h-high terminating');
    expect(await configMap('h-low')).toBeDefined();
    await clients.writer.patchJson({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'h-high' }, [{ op: 'remove', path: '/metadata/finalizers' }]);
    await eventually(async () => ((await configMap('h-low')) === undefined && (await configMap('h-high')) === undefined) || undefined, 'both children deleted');
  });

  it('refuses a dependsOn cycle before writing anything, with an event and the Ready condition', async () => {
    await clients.apply(parent('cyc', 'cycle'));
    const ready = await readyWhen('cyc', (c) => c.reason === 'InvalidOrder', 'Ready=False InvalidOrder');
    expect(ready.message).toBe(`dependsOn cycle: ConfigMap ${namespace}/cyc-a → ConfigMap ${namespace}/cyc-b → ConfigMap ${namespace}/cyc-a`);
    const events = await eventually(async () => {
      const list = await clients.client.request<{ items: { reason: string; message: string }[] }>({
        method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, query: { fieldSelector: 'involvedObject.name=cyc' },
      });
      const errors = list.items.filter((e) => e.reason === 'SyncError');
      return errors.length > 0 ? errors : undefined;
    }, 'a SyncError for the cycle');
    expect(events[0]!.message).toContain('dependsOn cycle');
    expect(await configMap('cyc-a')).toBeUndefined();
    expect(await configMap('cyc-b')).toBeUndefined();
  });

  it('writes children without order as before, and leaves the status to the hook', async () => {
    await clients.apply(parent('plain', 'plain'));
    await eventually(async () => ((await configMap('plain-a')) && (await configMap('plain-b'))) ?? undefined, 'both children');
    const status = await eventually(async () => {
      const s = (await getParent('plain'))?.status as { hook?: string } | undefined;
      return s?.hook === 'ok' ? s : undefined;
    }, "the hook's status");
    expect(status).toEqual({ hook: 'ok', observedGeneration: 1 });
  });
});
