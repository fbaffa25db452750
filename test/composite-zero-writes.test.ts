/**
 * A converged controller writes nothing (docs/concepts.md, "Skipping unchanged children" and
 * "Parent status"): with 100 parents resynced every second in server-side-apply mode, a window holding
 * at least two complete syncs of every parent sees no API write from the host at all.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'zero-writes';
const PARENTS = 100;
const { kind, plural } = TEST_PARENT_KINDS.quiet;

interface SyncRequest {
  parent: KubeObject;
  children: Record<string, Record<string, KubeObject>>;
}
interface Request {
  method: string;
  path: string;
  status: number;
}

let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let namespace: string;
/** Hook calls so far, per parent name. */
const hookCalls = new Map<string, number>();
/** Every API request the host made, in order. */
const requests: Request[] = [];

/** One ConfigMap per parent; the status counts the observed ConfigMaps. */
function sync(req: SyncRequest) {
  const name = req.parent.metadata.name!;
  hookCalls.set(name, (hookCalls.get(name) ?? 0) + 1);
  return {
    status: { observedChildren: Object.keys(req.children['ConfigMap.v1'] ?? {}).length },
    children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-config`, labels: { quiet: name } }, data: { parent: name } }],
  };
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, TEST_PARENT_KINDS.quiet);
  hook = Fastify();
  hook.post('/sync', (request) => sync(request.body as SyncRequest));
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  loom = await startTestLoom(LABEL, { applyStrategy: 'server-side-apply' }, (request) => requests.push(request));
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'quiet-controller', labels: { 'loom-test': LABEL } },
    spec: {
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: plural },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      resyncPeriodSeconds: 1,
      hooks: { sync: { webhook: { url } } },
    },
  });
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
});

const names = Array.from({ length: PARENTS }, (_, i) => `quiet-${i}`);
const isWrite = (request: Request): boolean => request.method !== 'GET' && request.method !== 'WATCH';

async function list(path: string): Promise<KubeObject[]> {
  return (await clients.client.request<{ items: KubeObject[] }>({ method: 'GET', path })).items;
}

/** Every parent has its child, and every status counts it. */
async function allConverged(): Promise<true | undefined> {
  const [parents, children] = await Promise.all([
    list(`/apis/${TEST_GROUP}/v1/namespaces/${namespace}/${plural}`),
    list(`/api/v1/namespaces/${namespace}/configmaps`),
  ]);
  const childNames = new Set(children.map((child) => child.metadata.name));
  const done = parents.filter((parent) => {
    const status = parent.status as { observedChildren?: number } | undefined;
    return status?.observedChildren === 1 && childNames.has(`${parent.metadata.name}-config`);
  });
  return done.length === PARENTS || undefined;
}

/** Resolves once every parent's hook has been called `more` times after `since`. */
async function everyParentSynced(since: ReadonlyMap<string, number>, more: number, what: string): Promise<void> {
  const done = (): boolean => names.every((name) => (hookCalls.get(name) ?? 0) >= (since.get(name) ?? 0) + more);
  await eventually(() => Promise.resolve(done() || undefined), what);
}

const totalCalls = (): number => [...hookCalls.values()].reduce((sum, n) => sum + n, 0);

describe('a converged CompositeController', () => {
  it('makes no API write across full resync rounds', async () => {
    await Promise.all(names.map((name) => clients.apply({
      apiVersion: `${TEST_GROUP}/v1`, kind,
      metadata: { name, namespace },
      spec: { selector: { matchLabels: { quiet: name } } },
    })));
    await eventually(allConverged, `${PARENTS} children and statuses`);
    expect(requests.filter(isWrite).length).toBeGreaterThanOrEqual(2 * PARENTS);

    // One more sync of every parent: the syncs that were running at convergence have finished.
    await everyParentSynced(new Map(hookCalls), 1, 'a sync of every parent after convergence');
    const [firstRequest, callsBefore, since] = [requests.length, totalCalls(), new Map(hookCalls)];
    // Three more hook calls per parent: at least two complete syncs of every parent lie in the window.
    await everyParentSynced(since, 3, 'three resync rounds');
    const window = requests.slice(firstRequest);
    const writes = window.filter(isWrite);
    console.log(`zero-writes window: ${totalCalls() - callsBefore} hook calls, ${window.length} API requests, ${writes.length} writes`);
    expect(writes).toEqual([]);
  });
});
