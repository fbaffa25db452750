/**
 * An event storm on the real control plane (issue 24, finding 2): one controller whose hook fails for
 * hundreds of parents, each failure a `SyncError` Event, with loom at Metacontroller's default client
 * rate (`--client-go-qps 5`, `--client-go-burst 10`). A healthy controller applied while the storm
 * runs must still start and create its first child: its caches, its status and its writes never wait
 * behind the storm's events (they have a budget of their own, and drop what they cannot write in time)
 * nor behind the storm's own requests (the client rate limit takes turns by controller).
 * The time to that first child is printed, not asserted: it depends on the machine.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, type ParentKind } from './support/test-crd.ts';

const LABEL = 'events-storm';
/** This file's own parent types, so no other test file's controllers see its parents. */
const STORM: ParentKind = { plural: 'eventstorms', kind: 'EventStorm' };
const CALM: ParentKind = { plural: 'eventcalms', kind: 'EventCalm' };
/** Parents whose sync keeps failing (as many as in the report). */
const STORM_PARENTS = 400;
/** Failed syncs before the healthy controller is applied: every parent's first, and retries under way. */
const FAILURES_BEFORE = STORM_PARENTS + 100;
/**
 * Generous: six times the 10 s the issue asks for, and far more than the fixed host takes (the figure
 * is printed); the host that queued events with everything else took minutes here.
 */
const FIRST_CHILD_WAIT_MS = 60_000;
/**
 * Generous: the failing parents are retried with a backoff that doubles (client-go's, capped at
 * 1,000 s), so the next storm sync may come a while after the child.
 */
const STORM_GOES_ON_WAIT_MS = 300_000;

let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let namespace: string;
let url: string;
let stormCalls = 0;
const stormParents = new Set<string>();
/** Event writes loom made (creates and patches). */
let eventWrites = 0;

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), 'events-storm');
  await createParentCrd(clients, STORM);
  await createParentCrd(clients, CALM);
  hook = Fastify();
  hook.post('/storm', (request, reply) => {
    stormCalls++;
    stormParents.add((request.body as { parent: KubeObject }).parent.metadata.name!);
    return reply.code(500).type('text/plain').send('the storm hook always fails');
  });
  hook.post('/calm', (request) => {
    const { parent } = request.body as { parent: KubeObject };
    return { children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-child` }, data: { calm: 'yes' } }] };
  });
  url = await hook.listen({ host: '127.0.0.1', port: 0 });
  loom = await startTestLoom(LABEL, { clientQps: 5, clientBurst: 10 }, ({ path }) => {
    if (path.includes('/events')) eventWrites++;
  });
}, 120_000);

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
});

const controller = (name: string, kind: ParentKind): KubeObject => ({
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name, labels: { 'loom-test': LABEL } },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: kind.plural },
    childResources: kind === CALM ? [{ apiVersion: 'v1', resource: 'configmaps' }] : [],
    hooks: { sync: { webhook: { url: `${url}/${kind === CALM ? 'calm' : 'storm'}` } } },
  },
});

/** The SyncError Events about storm parents. */
async function stormEvents(): Promise<number> {
  const list = await clients.client.request<{ items: { reason?: string; involvedObject: { kind?: string } }[] }>({
    method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, query: { fieldSelector: `involvedObject.kind=${STORM.kind}` },
  });
  return list.items.filter((e) => e.reason === 'SyncError').length;
}

describe('an event storm', () => {
  it('does not keep a healthy controller applied during it from creating its first child', async () => {
    await clients.apply(controller('events-storm', STORM));
    for (let i = 0; i < STORM_PARENTS; i += 25) {
      await Promise.all(Array.from({ length: 25 }, (_, j) => clients.apply({
        apiVersion: `${TEST_GROUP}/v1`, kind: STORM.kind, metadata: { name: `storm-${i + j}`, namespace }, spec: {},
      })));
    }
    await eventually(() => Promise.resolve((stormParents.size >= STORM_PARENTS && stormCalls >= FAILURES_BEFORE) || undefined),
      `${FAILURES_BEFORE} failed syncs of ${STORM_PARENTS} parents`, 120_000);

    const appliedAt = systemClock.now();
    const callsThen = stormCalls;
    await clients.apply(controller('events-calm', CALM));
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: CALM.kind, metadata: { name: 'calm', namespace }, spec: {} });
    const child = await eventually(
      () => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'calm-child' }),
      'the healthy controller\'s first child', FIRST_CHILD_WAIT_MS,
    );
    const seconds = (systemClock.now() - appliedAt) / 1000;
    console.info(`events storm: first child of the healthy controller ${seconds.toFixed(1)} s after it was applied; `
      + `${stormCalls - callsThen} failed storm syncs meanwhile, ${stormCalls} in all; ${eventWrites} event writes so far`);

    expect(child.data).toEqual({ calm: 'yes' });
    // The storm was still on when the child came: a storm sync fails after it (waited for, not counted
    // at once: the child may come within the storm's retry backoff). And it was reported: the events
    // were written, as far as their budget went.
    const callsAtChild = stormCalls;
    await eventually(() => Promise.resolve(stormCalls > callsAtChild || undefined), 'a storm sync failing after the child came', STORM_GOES_ON_WAIT_MS);
    expect(await stormEvents()).toBeGreaterThan(0);
  }, FIRST_CHILD_WAIT_MS + STORM_GOES_ON_WAIT_MS + 180_000);
});
