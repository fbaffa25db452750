/**
 * Hook resilience against the real control plane (docs/hook-protocol.md, "Concurrency cap" and
 * "Circuit breaker"): a controller under `--hook-max-concurrency=2` never has more than 2 calls at its
 * hook at once, and a dead hook behind an open circuit breaker is called far less often than its
 * parents are retried, keeps every child, and every parent converges once the hook is back.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'hook-resilience';
const { kind, plural } = TEST_PARENT_KINDS.resilient;
const CAP = 2;
const FAILURES = 3;
type Role = 'capped' | 'breaker';

let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let namespace: string;

interface SyncRequest {
  parent: KubeObject & { spec: { color: string } };
}

/** One ConfigMap per parent carrying its colour; the status echoes the colour. */
function answer(parent: SyncRequest['parent']) {
  const name = parent.metadata.name!;
  const { color } = parent.spec;
  return { status: { color }, children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-cm`, labels: { resilient: name } }, data: { color } }] };
}

/** The capped hook: counts the calls in flight, and holds each until more than the cap are in flight or a second has passed. */
const capped = { inFlight: 0, peak: 0, waiting: new Set<() => void>() };
async function cappedSync(request: SyncRequest) {
  capped.inFlight++;
  capped.peak = Math.max(capped.peak, capped.inFlight);
  if (capped.inFlight > CAP) for (const wake of capped.waiting) wake();
  // Holding calls makes any concurrency there is visible at the hook; the hold is not what is tested.
  const { promise: over, resolve } = Promise.withResolvers<void>();
  capped.waiting.add(resolve);
  try {
    await Promise.race([over, systemClock.sleep(1_000)]);
    return answer(request.parent);
  } finally {
    capped.waiting.delete(resolve);
    capped.inFlight--;
  }
}

/** The breaker's hook: dead (503 at once) or alive; counts the calls it gets while dead. */
const breaker = { dead: false, callsWhileDead: 0 };

const controller = (role: Role, url: string): KubeObject => ({
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name: `resilient-${role}`, labels: { 'loom-test': LABEL } },
  spec: {
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: plural, labelSelector: { matchLabels: { role } } },
    childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
    hooks: { sync: { webhook: { url } } },
  },
});

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), 'resilience');
  await createParentCrd(clients, TEST_PARENT_KINDS.resilient);
  hook = Fastify();
  hook.post('/capped/sync', (request) => cappedSync(request.body as SyncRequest));
  hook.post('/breaker/sync', (request, reply) => {
    if (!breaker.dead) return answer((request.body as SyncRequest).parent);
    breaker.callsWhileDead++;
    return reply.code(503).send('the hook is down');
  });
  const base = await hook.listen({ host: '127.0.0.1', port: 0 });
  loom = await startTestLoom(LABEL, {
    workers: 5, hookMaxConcurrency: CAP,
    // A short open period, so the test sees probes and the close without waiting the default 30 s.
    hookCircuit: { failures: FAILURES, openMs: 2_000, maxOpenMs: 2_000 },
    metricsAddress: { host: '127.0.0.1', port: 0 },
    // Every SyncError is written, so each parent's can be read.
    eventsQps: 100, eventsBurst: 1_000,
  });
  await clients.apply(controller('capped', `${base}/capped/sync`));
  await clients.apply(controller('breaker', `${base}/breaker/sync`));
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
});

const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind, namespace, name });
const childRef = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-cm` });

function applyParent(name: string, role: Role, color: string): Promise<KubeObject> {
  return clients.apply({ ...parentRef(name), metadata: { name, namespace, labels: { role } }, spec: { selector: { matchLabels: { resilient: name } }, color } });
}

/** Waits until every parent's status and child show `color`; returns the children. */
function converged(names: readonly string[], color: string): Promise<KubeObject[]> {
  return eventually(async () => {
    const pairs = await Promise.all(names.map((name) => Promise.all([clients.writer.get(parentRef(name)), clients.writer.get(childRef(name))])));
    const colorOf = (field: unknown): unknown => (field as { color?: string } | undefined)?.color;
    const done = pairs.every(([parent, child]) => colorOf(parent?.status) === color && colorOf(child?.data) === color);
    return done ? pairs.map(([, child]) => child!) : undefined;
  }, `${names.length} parents showing ${color}`, 120_000);
}

/** Messages of the `SyncError` events on parent `name`. */
async function syncErrors(name: string): Promise<string[]> {
  const list = await clients.client.request<{ items: { reason?: string; message?: string; involvedObject: { kind?: string } }[] }>({
    method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, query: { fieldSelector: `involvedObject.name=${name}` },
  });
  return list.items.filter((e) => e.reason === 'SyncError' && e.involvedObject.kind === kind).map((e) => e.message ?? '');
}

/** The value of one series of loom's `/metrics`, summed over series matching every label given; 0 when absent. */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${loom.metricsPort}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

describe('hook resilience', () => {
  it(`never has more than ${CAP} calls at once at the hook of a controller capped at ${CAP}, and syncs every parent`, async () => {
    const names = Array.from({ length: 10 }, (_, i) => `capped-${i}`);
    await Promise.all(names.map((name) => applyParent(name, 'capped', 'one')));
    await converged(names, 'one');
    console.log(`peak concurrent calls at the capped hook: ${capped.peak}`);
    expect(capped.peak).toBeGreaterThan(0);
    expect(capped.peak).toBeLessThanOrEqual(CAP);
  });

  it('stops calling a dead hook while its circuit is open, keeps the children, and syncs every parent once the hook is back', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `breaker-${i}`);
    await Promise.all(names.map((name) => applyParent(name, 'breaker', 'one')));
    const before = await converged(names, 'one');

    breaker.dead = true;
    await Promise.all(names.map((name) => applyParent(name, 'breaker', 'two')));
    // Every parent has been failed fast at least once.
    await eventually(async () => {
      const errors = await Promise.all(names.map((name) => syncErrors(name)));
      return errors.every((messages) => messages.some((m) => /circuit open after \d+ failures; next try/.test(m))) ? true : undefined;
    }, 'a circuit-open SyncError on every parent', 120_000);
    const who = { controller: 'resilient-breaker' };
    // The calls are read before the probes: a probe is counted before it is sent, so one made between
    // the two reads is counted too, however slow the machine is.
    const calls = breaker.callsWhileDead;
    const [probes, rejected] = await Promise.all([metric('loom_hook_circuit_transitions_total', { ...who, to: 'half-open' }), metric('loom_hook_circuit_rejected_total', who)]);
    console.log(`while dead: ${calls} calls at the hook, ${rejected} calls failed fast, ${probes} probes`);
    // The calls that opened it, those already in flight under the cap, and one probe per open period: no more.
    expect(calls).toBeLessThanOrEqual(FAILURES + CAP + probes);
    expect(rejected).toBeGreaterThanOrEqual(names.length);
    expect(await metric('loom_hook_circuit_open', who)).toBe(1);
    // No child was touched while the hook was dead.
    for (const child of before) {
      const now = await clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: child.metadata.name! });
      expect(now?.metadata.resourceVersion).toBe(child.metadata.resourceVersion);
    }

    breaker.dead = false;
    await converged(names, 'two');
    expect(await metric('loom_hook_circuit_transitions_total', { ...who, to: 'closed' })).toBeGreaterThanOrEqual(1);
    expect(await metric('loom_hook_circuit_open', who)).toBe(0);
  });
});
