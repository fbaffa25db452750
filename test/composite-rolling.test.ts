/**
 * Rolling updates on the real control plane (docs/hook-protocol.md, "Rolling updates"): a parent with 5
 * children of a `RollingInPlace` type moves its children to a new spec one at a time, in the hook's
 * order, each only once every child already moved passes the `Ready` status check; a failing check halts
 * the rollout (`Updated=False`, `RolloutWaiting`) and fixing it lets the rollout go on to
 * `Updated=True`. The parent's ControllerRevisions record the progress, and only the latest is left.
 *
 * The children are objects of a test CRD, so the test plays their controller and writes their
 * `Ready` conditions through the status subresource.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'rolling';
const PARENT = TEST_PARENT_KINDS.rolling;
const CHILD = TEST_PARENT_KINDS.rollChild;
const API_VERSION = `${TEST_GROUP}/v1`;
const NAMES = ['c0', 'c1', 'c2', 'c3', 'c4'];

/** Five children carrying the parent's `spec.version`; the status says which revision is rolled out. */
const SYNC = `{
  "children": [${NAMES.map((n) => `{ "apiVersion": "${API_VERSION}", "kind": "${CHILD.kind}", "metadata": { "name": parent.metadata.name & "-${n}" }, "spec": { "version": parent.spec.version } }`).join(', ')}],
  "status": { "version": parent.spec.version }
}`;

let clients: TestClients;
let loom: TestLoom;
let namespace: string;

interface Condition { type: string; status: string; reason?: string; message?: string }

const child = (name: string) => clients.writer.get({ apiVersion: API_VERSION, kind: CHILD.kind, namespace, name: `roll-${name}` });
const parent = () => clients.writer.get({ apiVersion: API_VERSION, kind: PARENT.kind, namespace, name: 'roll' });
const versions = async () => Promise.all(NAMES.map(async (n) => ((await child(n))?.spec as { version?: string } | undefined)?.version));
const updated = async () => ((await parent())?.status as { conditions?: Condition[] } | undefined)?.conditions?.find((c) => c.type === 'Updated');

/** Writes the child's `Ready` condition, as its controller would. */
async function setReady(name: string, ready: boolean): Promise<void> {
  const current = await eventually(() => child(name), `child ${name}`);
  await clients.writer.replaceStatus({ ...current, status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
}

/** Waits until the children's versions are exactly `expected` and the Updated condition has `reason`. */
/**
 * The Updated condition once the children are at `expected` and the condition has `reason` (and a
 * message matching `message`): children and status are read apart, so a child can be seen moved while
 * the status still tells of the move before.
 */
function rolloutAt(expected: string[], reason: string, message = /./): Promise<Condition> {
  return eventually(async () => {
    const [now, condition] = await Promise.all([versions(), updated()]);
    const reached = JSON.stringify(now) === JSON.stringify(expected) && condition?.reason === reason && message.test(condition.message ?? '');
    return reached ? condition : undefined;
  }, `children at ${expected.join(',')} with Updated reason ${reason} and a message matching ${message}`);
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await Promise.all([createParentCrd(clients, PARENT), createParentCrd(clients, CHILD)]);
  loom = await startTestLoom(LABEL);
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'rolling', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: API_VERSION, resource: PARENT.plural },
      childResources: [{
        apiVersion: API_VERSION, resource: CHILD.plural,
        updateStrategy: { method: 'RollingInPlace', statusChecks: { conditions: [{ type: 'Ready', status: 'True' }] } },
      }],
      hooks: { sync: { jsonata: { expression: SYNC } } },
    },
  });
});

afterAll(async () => {
  await loom?.stop();
});

describe('rolling updates', () => {
  it('moves children one at a time, halting while a moved child fails its status check', async () => {
    await clients.apply({ apiVersion: API_VERSION, kind: PARENT.kind, metadata: { name: 'roll', namespace }, spec: { version: 'a' } });
    const first = await rolloutAt(['a', 'a', 'a', 'a', 'a'], 'OnLatestRevision');
    expect(first.status).toBe('True');
    // Every child fails its check until the test marks it ready, so the rollout halts after each move.
    for (const name of NAMES) await setReady(name, false);

    await clients.apply({ apiVersion: API_VERSION, kind: PARENT.kind, metadata: { name: 'roll', namespace }, spec: { version: 'b' } });
    for (let moved = 1; moved < NAMES.length; moved++) {
      const expected = NAMES.map((_, i) => (i < moved ? 'b' : 'a'));
      // The rollout halts on the child it moved last.
      const halted = await rolloutAt(expected, 'RolloutWaiting', new RegExp(`roll-${NAMES[moved - 1]}`));
      expect(halted.status).toBe('False');
      await setReady(NAMES[moved - 1]!, true);
    }
    await setReady(NAMES.at(-1)!, true);
    const done = await rolloutAt(['b', 'b', 'b', 'b', 'b'], 'OnLatestRevision');
    expect(done.status).toBe('True');

    // The revision of spec `a` is deleted once no child belongs to it; the latest holds all five.
    const path = `/apis/metacontroller.k8s.io/v1alpha1/namespaces/${namespace}/controllerrevisions`;
    const left = await eventually(async () => {
      const list = await clients.client.request<{ items: (KubeObject & { parentPatch: unknown; children?: { kind: string; names: string[] }[] })[] }>({ method: 'GET', path });
      return list.items.length === 1 ? list.items[0] : undefined;
    }, 'one ControllerRevision left');
    expect(left?.parentPatch).toEqual({ spec: { version: 'b' } });
    expect(left?.children).toEqual([{ apiGroup: TEST_GROUP, kind: CHILD.kind, names: NAMES.map((n) => `roll-${n}`) }]);
  });
});
