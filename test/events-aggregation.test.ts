/**
 * Repeated Events on the real control plane, aggregated as client-go's event correlator does: a hook
 * that keeps failing leaves one `SyncError` Event whose `count` grows, not one Event per failure; the
 * recorder's PATCH of `count` names loom's field manager, two quick records of one event end as one
 * Event with count 2, an Event deleted meanwhile is created again, and more than ten similar events
 * with different messages are combined into one.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createEventRecorder, type EventRecorder } from '../src/kube/index.ts';
import { createTestNamespace, eventually, managersOf, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, type ParentKind } from './support/test-crd.ts';

const LABEL = 'events-aggregation';
/** This file's own parent type, so no other test file's controllers see its parents. */
const KIND: ParentKind = { plural: 'repeatings', kind: 'Repeating' };
/** How many times the hook fails for the parent before it answers normally. */
const FAILURES = 6;
const FIELD_MANAGER = 'loom-events-test';

interface CoreEvent extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  involvedObject: { kind?: string; name?: string; uid?: string };
}

let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let namespace: string;
/** Sync hook calls per parent name. */
const calls = new Map<string, number>();

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), 'events');
  await createParentCrd(clients, KIND);
  hook = Fastify();
  // The first FAILURES calls for a parent fail the same way each time; then the hook answers, so the
  // number of failed syncs is fixed and the test can wait for all of their events.
  hook.post('/sync', (request, reply) => {
    const name = (request.body as { parent: KubeObject }).parent.metadata.name!;
    const n = (calls.get(name) ?? 0) + 1;
    calls.set(name, n);
    if (n <= FAILURES) return reply.code(500).type('text/plain').send('the hook keeps failing');
    return { status: { synced: true }, children: [] };
  });
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  loom = await startTestLoom(LABEL);
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'events-aggregation', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
      hooks: { sync: { webhook: { url } } },
    },
  });
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
});

/** The Events recorded about the object named `name` in the test namespace. */
async function eventsOf(name: string): Promise<CoreEvent[]> {
  const list = await clients.client.request<{ items: CoreEvent[] }>({
    method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, query: { fieldSelector: `involvedObject.name=${name}` },
  });
  return list.items;
}

const totalCount = (events: CoreEvent[]): number => events.reduce((sum, e) => sum + (e.count ?? 1), 0);

/** Waits until the events about `name` matching `filter` add up to `count` occurrences; returns them. */
async function occurrences(name: string, count: number, filter: (e: CoreEvent) => boolean = () => true): Promise<CoreEvent[]> {
  return eventually(async () => {
    const events = (await eventsOf(name)).filter(filter);
    return totalCount(events) >= count ? events : undefined;
  }, `${count} occurrences of events about ${name}`);
}

/** A ConfigMap to record events about, standing for any object loom reports on. */
async function subject(name: string): Promise<KubeObject> {
  return clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: {} });
}

function recorder(): EventRecorder {
  return createEventRecorder({
    client: clients.client, component: 'loom-events-test', fieldManager: FIELD_MANAGER,
    now: () => systemClock.now(), logger: pino({ level: 'silent' }),
  });
}

describe('Event aggregation', () => {
  it('keeps one SyncError Event with a growing count for a hook that keeps failing', async () => {
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'failing', namespace }, spec: {} });
    const isSyncError = (e: CoreEvent) => e.reason === 'SyncError' && e.type === 'Warning' && e.involvedObject.kind === KIND.kind;
    const events = await occurrences('failing', FAILURES, isSyncError);
    // The hook answered after its failures: no further SyncError can come, so the count is final.
    await eventually(async () => ((await clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, namespace, name: 'failing' }))
      ?.status as { synced?: boolean } | undefined)?.synced, 'the parent synced after the failures');
    console.info(`SyncError Events for one parent after ${FAILURES} failed syncs: ${events.length} (counts ${events.map((e) => e.count).join(', ')})`);
    expect(events).toHaveLength(1);
    expect(events[0]!.count).toBe(FAILURES);
    expect(events[0]!.message).toContain('the hook keeps failing');
    expect(Date.parse(events[0]!.lastTimestamp!)).toBeGreaterThanOrEqual(Date.parse(events[0]!.firstTimestamp!));
  });

  it('ends two quick records of one event as one Event with count 2, patched under loom\'s field manager', async () => {
    const obj = await subject('twice');
    const events = recorder();
    events.record(obj, { type: 'Warning', reason: 'Twice', message: 'said twice' });
    events.record(obj, { type: 'Warning', reason: 'Twice', message: 'said twice' });
    const [event, ...others] = await occurrences('twice', 2);
    expect(others).toEqual([]);
    expect(event!.count).toBe(2);
    expect(event!.involvedObject.uid).toBe(obj.metadata.uid);
    expect(managersOf(event!)).toEqual([`${FIELD_MANAGER}/Update`]);
  });

  it('creates the Event again when the one it would patch was deleted', async () => {
    const obj = await subject('expired');
    const events = recorder();
    events.record(obj, { type: 'Normal', reason: 'Again', message: 'once more' });
    const [first] = await occurrences('expired', 1);
    await clients.client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}/events/${first!.metadata.name}` });
    events.record(obj, { type: 'Normal', reason: 'Again', message: 'once more' });
    const again = await eventually(async () => {
      const list = await eventsOf('expired');
      return list.length > 0 ? list : undefined;
    }, 'the Event created again');
    expect(again).toHaveLength(1);
    expect(again[0]!.metadata.name).not.toBe(first!.metadata.name);
    // As client-go does, the new Event carries on the count since the first occurrence.
    expect(again[0]!.count).toBe(2);
    expect(again[0]!.firstTimestamp).toBe(first!.firstTimestamp);
  });

  it('combines more than ten similar events with different messages into one', async () => {
    const obj = await subject('similar');
    const events = recorder();
    for (let i = 1; i <= 12; i++) events.record(obj, { type: 'Warning', reason: 'Similar', message: `attempt ${i} failed` });
    const all = await occurrences('similar', 12);
    const combined = all.filter((e) => e.message?.startsWith('(combined from similar events): '));
    expect(combined).toHaveLength(1);
    expect(combined[0]!.count).toBe(3);
    expect(combined[0]!.message).toBe('(combined from similar events): attempt 12 failed');
    expect(all.filter((e) => !combined.includes(e)).map((e) => [e.message, e.count]).sort())
      .toEqual(Array.from({ length: 9 }, (_, i) => [`attempt ${i + 1} failed`, 1]).sort());
  });
});
