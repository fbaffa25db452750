/**
 * Fault R1: loom killed with SIGKILL half-way through converging 300 parents, then started again.
 * Nothing of what it wrote before the kill may be lost or redone: after the restart every parent has
 * exactly its three children (900, no duplicates, nothing else in the namespace), every child that
 * existed at the kill keeps its UID and resourceVersion (the restart found it, it did not recreate or
 * rewrite it), every parent's status counts its children, and no JSONata evaluator process outlives
 * the killed host. Prints how long the restarted host took to converge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { childPids, isRunning, spawnLoom, type LoomProcess } from './support/loom-process.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'restart-loom';
const KIND = TEST_PARENT_KINDS.restart;
const PARENTS = 300;
const CHILDREN_PER_PARENT = 3;
const SLOTS = ['a', 'b', 'c'] as const;
/** Kill once this many children exist: clearly started, far from done. */
const KILL_AT = 90;
/** Metacontroller's default 5 QPS would make 1,200 writes take four minutes; the test hosts' rate. */
const FLAGS = ['--workers', '5', '--client-go-qps', '200', '--client-go-burst', '400', '--discovery-interval', '2s'];

/** Three ConfigMaps per parent, named after it; the status counts the ConfigMaps loom observed. */
const SYNC = `(
  $child := function($slot) {{
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": { "name": $$.parent.metadata.name & "-" & $slot },
    "data": { "parent": $$.parent.metadata.name, "slot": $slot }
  }};
  {
    "children": [${SLOTS.map((s) => `$child("${s}")`).join(', ')}],
    "status": { "observed": $count($keys(children."ConfigMap.v1")) }
  }
)`;

let clients: TestClients;
let namespace: string;
const hosts: LoomProcess[] = [];

interface Listed {
  items: KubeObject[];
}
const listChildren = async (): Promise<KubeObject[]> =>
  (await clients.client.request<Listed>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/configmaps` })).items;
const listParents = async (): Promise<KubeObject[]> =>
  (await clients.client.request<Listed>({ method: 'GET', path: `/apis/${TEST_GROUP}/v1/namespaces/${namespace}/${KIND.plural}` })).items;
const parentName = (i: number): string => `p${String(i).padStart(3, '0')}`;
const observed = (p: KubeObject): number | undefined => (p.status as { observed?: number } | undefined)?.observed;

async function applyParents(): Promise<void> {
  const names = Array.from({ length: PARENTS }, (_, i) => parentName(i));
  // 25 at a time: fast, without queueing 300 requests on the API server at once.
  for (let i = 0; i < names.length; i += 25) {
    await Promise.all(names.slice(i, i + 25).map((name) =>
      clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace }, spec: { name } })));
  }
}

/** How many parents have some but not all of their children, given the names of the children that exist. */
function partialParents(childNames: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const name of childNames) {
    const parent = name.slice(0, name.lastIndexOf('-'));
    counts.set(parent, (counts.get(parent) ?? 0) + 1);
  }
  return [...counts.values()].filter((n) => n < CHILDREN_PER_PARENT).length;
}

/** Polls the children until at least `count` exist; returns how many there were at that poll. */
async function waitForChildren(count: number, host: LoomProcess): Promise<number> {
  return eventually(async () => {
    if (!isRunning(host.pid)) throw new Error(`loom exited before converging:\n${host.logTail()}`);
    const n = (await listChildren()).length;
    return n >= count ? n : undefined;
  }, `${count} children`, 60_000);
}

/** Resolves once 900 children exist and every parent's status counts three; the time it took. */
async function waitForConvergence(host: LoomProcess): Promise<number> {
  const start = systemClock.now();
  await eventually(async () => {
    if (!isRunning(host.pid)) throw new Error(`loom exited before converging:\n${host.logTail()}`);
    if ((await listChildren()).length < PARENTS * CHILDREN_PER_PARENT) return undefined;
    const parents = await listParents();
    return parents.every((p) => observed(p) === CHILDREN_PER_PARENT) || undefined;
  }, 'every parent to have three children and a status counting them', 150_000);
  return systemClock.now() - start;
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'restart-loom', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { jsonata: { expression: SYNC } } },
    },
  });
});

afterAll(async () => {
  for (const host of hosts) await host.kill();
});

describe('loom killed with SIGKILL mid-converge', () => {
  it('keeps every child it made and converges the rest after a restart', async () => {
    await applyParents();
    const first = await spawnLoom(LABEL, FLAGS);
    hosts.push(first);
    const firstStart = systemClock.now();
    const seenAtKill = await waitForChildren(KILL_AT, first);
    const evaluators = childPids(first.pid);
    await first.kill();
    const killedAfterMs = systemClock.now() - firstStart;

    // The kill's baseline is what exists once loom is gone: a request it had in flight may still land.
    const before = new Map((await listChildren()).map((c) => [c.metadata.name!, c.metadata]));
    expect(before.size).toBeGreaterThanOrEqual(seenAtKill);
    expect(before.size).toBeLessThan(PARENTS * CHILDREN_PER_PARENT);
    const statusesBefore = (await listParents()).filter((p) => observed(p) !== undefined).length;
    const partial = partialParents([...before.values()].map((m) => m.name!));
    // SIGKILL runs no shutdown code: the evaluators must notice the lost channel and exit on their own.
    expect(evaluators.length).toBeGreaterThan(0);
    await eventually(async () => Promise.resolve(evaluators.every((pid) => !isRunning(pid)) || undefined), 'the evaluators to exit');

    const second = await spawnLoom(LABEL, FLAGS);
    hosts.push(second);
    const convergedMs = await waitForConvergence(second);

    const after = await listChildren();
    const parents = new Map((await listParents()).map((p) => [p.metadata.name!, p]));
    const expected = [...parents.keys()].flatMap((p) => SLOTS.map((s) => `${p}-${s}`)).sort();
    expect(parents.size).toBe(PARENTS);
    expect(after.map((c) => c.metadata.name!).sort()).toEqual(expected);
    for (const child of after) {
      const parent = parents.get((child.data as { parent: string }).parent)!;
      expect(child.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: KIND.kind, uid: parent.metadata.uid, controller: true })]);
    }
    const kept = after.filter((c) => before.has(c.metadata.name!));
    expect(kept.map((c) => [c.metadata.name, c.metadata.uid, c.metadata.resourceVersion]))
      .toEqual(kept.map((c) => [c.metadata.name, before.get(c.metadata.name!)!.uid, before.get(c.metadata.name!)!.resourceVersion]));
    expect([...parents.values()].filter((p) => observed(p) !== CHILDREN_PER_PARENT)).toEqual([]);

    console.log(`R1 loom SIGKILL: killed ${killedAfterMs} ms after start with ${before.size}/${PARENTS * CHILDREN_PER_PARENT} children `
      + `(${partial} parents with only some of theirs) and ${statusesBefore}/${PARENTS} statuses; the restarted process converged all ${PARENTS} parents in ${convergedMs} ms `
      + `(process start included); ${kept.length} children kept with their UID and resourceVersion`);
  }, 240_000);
});
