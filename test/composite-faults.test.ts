/**
 * Hook faults against the real control plane (docs/hook-protocol.md, "Failures and Retry-After"): a
 * failing, garbled, empty, slow, dripping, oversized or confused sync hook never touches the children it
 * created earlier, and each failure is reported as a `SyncError` Warning event on the parent; a 429 is
 * retried after `Retry-After` without one. Also: too many children, a partly refused answer.
 */
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'faults';
const { kind, plural } = TEST_PARENT_KINDS.faulty;
/**
 * The hook timeout of the `slow` controller. Its hook answers the first spec of a parent at once and
 * then hangs or drips without end, so the timeout is the only bound of the faults; yet that first
 * answer has to arrive within it, through an event loop this test shares with loom, on a loaded
 * machine: a few hundred milliseconds would race it.
 */
const SLOW_TIMEOUT_MS = 2_000;
/** Parents labelled `fault-controller: slow` go to the controller with a {@link SLOW_TIMEOUT_MS} hook timeout. */
type ControllerName = 'fast' | 'slow';
/** How the hook answers for one parent. */
type Mode = 'ok' | 'http500' | 'badJson' | 'hang' | 'throttleOnce' | 'mismatch' | 'oneRefused' | 'flood' | 'empty' | 'drip' | 'huge';
/** loom's `--max-children-per-parent` in this file. */
const MAX_CHILDREN = 50;

interface SyncRequest {
  parent: KubeObject & { spec: { color: string } };
}
interface HookCall {
  parent: string;
  color: string;
  mode: Mode;
}

let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let namespace: string;
const modes = new Map<string, Mode>();
const calls: HookCall[] = [];
let releaseHung: () => void = () => undefined;
const hung = new Promise<void>((resolve) => {
  releaseHung = resolve;
});

/** `{"children": [` and then a space every 50 ms until `stop` settles. */
async function* drip(stop: Promise<void>): AsyncGenerator<string> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  yield '{"children": [';
  while (!stopped) {
    await systemClock.sleep(50);
    yield ' ';
  }
}

/** One ConfigMap per parent carrying the parent's colour; the status echoes the colour. */
function answer(parent: SyncRequest['parent'], child: { name: string; owner: string }) {
  const { color } = parent.spec;
  return {
    status: { color },
    children: [{
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: child.name, labels: { faulty: child.owner } },
      data: { color },
    }],
  };
}

/** Faults answered with a raw HTTP reply rather than a hook response. */
const RAW_REPLIES: Partial<Record<Mode, (reply: FastifyReply) => FastifyReply>> = {
  http500: (reply) => reply.code(500).type('text/plain').send('the hook exploded'),
  badJson: (reply) => reply.code(200).type('application/json').send('{"children": ['),
  empty: (reply) => reply.code(200).type('application/json').send(''),
  // Headers at once, then a byte of a valid-looking body every 50 ms: never done within the timeout.
  drip: (reply) => reply.code(200).type('application/json').send(Readable.from(drip(hung))),
  // A body past loom's 16 MiB limit for a hook answer.
  huge: (reply) => reply.code(200).type('application/json').send(`{"status": {"pad": "${'x'.repeat(17 * 1024 * 1024)}"}}`),
};

/** The hook response of the faults that answer one, and of `ok`. */
function responseFor(mode: Mode, parent: SyncRequest['parent']) {
  const name = parent.metadata.name!;
  const usual = answer(parent, { name: `${name}-config`, owner: name });
  const extra = (childName: string, data: Record<string, string> = usual.children[0]!.data) =>
    ({ ...usual.children[0]!, metadata: { name: childName, labels: { faulty: name } }, data });
  switch (mode) {
    case 'mismatch':
      // A new child whose labels miss the parent's selector, and the existing child left out.
      return answer(parent, { name: `${name}-stray`, owner: 'someone-else' });
    case 'flood':
      // One more child than loom allows a parent: the usual one plus 50 more.
      return { ...usual, children: [...usual.children, ...Array.from({ length: MAX_CHILDREN }, (_, i) => extra(`${name}-flood-${i}`))] };
    case 'oneRefused':
      // The usual child, and one the API server refuses (a ConfigMap key may not hold a space).
      return { ...usual, children: [...usual.children, extra(`${name}-refused`, { 'not a key': 'x' })] };
    default:
      return usual;
  }
}

async function sync(req: SyncRequest, reply: FastifyReply) {
  const name = req.parent.metadata.name!;
  // Only the touched spec meets the fault: a late sync of the first spec must not use it up.
  const mode = req.parent.spec.color === 'first' ? 'ok' : modes.get(name) ?? 'ok';
  calls.push({ parent: name, color: req.parent.spec.color, mode });
  const raw = RAW_REPLIES[mode];
  if (raw) return raw(reply);
  if (mode === 'hang') {
    await hung;
    return reply.code(503).send('released at the end of the run');
  }
  if (mode === 'throttleOnce') {
    modes.set(name, 'ok');
    return reply.code(429).header('retry-after', '1').send('slow down');
  }
  return responseFor(mode, req.parent);
}

const controller = (name: ControllerName, url: string, timeout?: string): KubeObject => ({
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name: `faults-${name}`, labels: { 'loom-test': LABEL } },
  spec: {
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: plural, labelSelector: { matchLabels: { 'fault-controller': name } } },
    childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
    hooks: { sync: { webhook: { url, ...(timeout ? { timeout } : {}) } } },
  },
});

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), 'faults');
  await createParentCrd(clients, TEST_PARENT_KINDS.faulty);
  hook = Fastify();
  hook.post('/sync', (request, reply) => sync(request.body as SyncRequest, reply));
  const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  loom = await startTestLoom(LABEL, { maxChildrenPerParent: MAX_CHILDREN });
  await clients.apply(controller('fast', url));
  await clients.apply(controller('slow', url, `${SLOW_TIMEOUT_MS}ms`));
});

afterAll(async () => {
  await loom?.stop();
  releaseHung();
  await hook?.close();
});

const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind, namespace, name });
const configMapRef = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });

function applyParent(name: string, color: string, via: ControllerName = 'fast'): Promise<KubeObject> {
  return clients.apply({
    ...parentRef(name),
    metadata: { name, namespace, labels: { 'fault-controller': via } },
    spec: { selector: { matchLabels: { faulty: name } }, color },
  });
}

const colorOf = (obj: KubeObject | undefined): string | undefined =>
  ((obj?.data ?? obj?.status) as { color?: string } | undefined)?.color;

/** Waits until the parent's status and its child both show `color`; returns the child. */
async function converged(name: string, color: string): Promise<KubeObject> {
  return eventually(async () => {
    const [parent, child] = await Promise.all([clients.writer.get(parentRef(name)), clients.writer.get(configMapRef(`${name}-config`))]);
    return colorOf(parent) === color && colorOf(child) === color ? child : undefined;
  }, `${name}: status and child showing ${color}`);
}

/** The hook creates the child normally; then it answers with `mode`, and the parent is touched. */
async function establishThenBreak(name: string, mode: Mode, via: ControllerName = 'fast'): Promise<KubeObject> {
  await applyParent(name, 'first', via);
  const child = await converged(name, 'first');
  modes.set(name, mode);
  await applyParent(name, 'second', via);
  return child;
}

/** Messages of the `SyncError` events recorded on parent `name`. */
async function syncErrors(name: string): Promise<string[]> {
  const list = await clients.client.request<{ items: { reason?: string; type?: string; message?: string; involvedObject: { kind?: string } }[] }>({
    method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, query: { fieldSelector: `involvedObject.name=${name}` },
  });
  return list.items.filter((e) => e.reason === 'SyncError' && e.type === 'Warning' && e.involvedObject.kind === kind).map((e) => e.message ?? '');
}

function syncErrorMatching(name: string, pattern: RegExp): Promise<string> {
  return eventually(async () => (await syncErrors(name)).find((m) => pattern.test(m)), `a SyncError event on ${name} matching ${pattern}`);
}

/** The child the first, healthy sync created is still there, unchanged. */
async function expectChildKept(before: KubeObject): Promise<void> {
  const now = await clients.writer.get(configMapRef(before.metadata.name!));
  expect(now?.metadata.uid).toBe(before.metadata.uid);
  expect(now?.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  expect(now?.data).toEqual({ color: 'first' });
}

describe('CompositeController hook faults', () => {
  it('keeps the children and records SyncError when the hook answers 500', async () => {
    const child = await establishThenBreak('http500', 'http500');
    const message = await syncErrorMatching('http500', /500/);
    expect(message).toContain('the hook exploded');
    await expectChildKept(child);
  });

  it('keeps the children and records SyncError when the hook answers invalid JSON', async () => {
    const child = await establishThenBreak('bad-json', 'badJson');
    await syncErrorMatching('bad-json', /invalid JSON/);
    await expectChildKept(child);
  });

  it('keeps the children and records SyncError when the hook times out', async () => {
    const child = await establishThenBreak('slow', 'hang', 'slow');
    const message = await syncErrorMatching('slow', /timed out/);
    expect(message).toContain(`${SLOW_TIMEOUT_MS} ms`);
    await expectChildKept(child);
  });

  it('keeps the children and records SyncError when the hook answers 200 with an empty body', async () => {
    const child = await establishThenBreak('empty', 'empty');
    await syncErrorMatching('empty', /invalid JSON/);
    await expectChildKept(child);
  });

  it('keeps the children and records SyncError when the hook drips its body past the timeout', async () => {
    const child = await establishThenBreak('drip', 'drip', 'slow');
    const message = await syncErrorMatching('drip', /timed out/);
    expect(message).toContain(`${SLOW_TIMEOUT_MS} ms`);
    await expectChildKept(child);
  });

  it('keeps the children and records SyncError when the hook answers more than 16 MiB', async () => {
    const child = await establishThenBreak('huge', 'huge');
    await syncErrorMatching('huge', /response body exceeds the limit of 16777216 bytes/);
    await expectChildKept(child);
  });

  it('retries after a 429 and applies the next answer, without a SyncError', async () => {
    const before = await establishThenBreak('throttled', 'throttleOnce');
    const after = await converged('throttled', 'second');
    expect(after.metadata.uid).toBe(before.metadata.uid);
    const secondCalls = calls.filter((c) => c.parent === 'throttled' && c.color === 'second');
    expect(secondCalls[0]?.mode).toBe('throttleOnce');
    expect(secondCalls.slice(1).map((c) => c.mode)).toContain('ok');
    expect(await syncErrors('throttled')).toEqual([]);
  });

  it('fails the sync, writing nothing, when a desired child misses the parent selector', async () => {
    const child = await establishThenBreak('mismatch', 'mismatch');
    const message = await syncErrorMatching('mismatch', /selector/);
    expect(message).toContain('mismatch-stray');
    expect(message).toContain('faulty=mismatch');
    await expectChildKept(child);
    expect(await clients.writer.get(configMapRef('mismatch-stray'))).toBeUndefined();
    const parent = await clients.writer.get(parentRef('mismatch'));
    expect(colorOf(parent)).toBe('first');
  });

  it('writes the hook status but keeps observedGeneration while a child write of the generation failed', async () => {
    await establishThenBreak('partial', 'oneRefused');
    const message = await syncErrorMatching('partial', /partial-refused/);
    expect(message).toMatch(/not a key/);
    await converged('partial', 'second');
    const parent = await clients.writer.get(parentRef('partial'));
    expect(parent?.metadata.generation).toBe(2);
    expect((parent?.status as { observedGeneration?: number }).observedGeneration).toBe(1);
    modes.set('partial', 'ok');
    await applyParent('partial', 'third');
    await eventually(async () => {
      const healed = await clients.writer.get(parentRef('partial'));
      return (healed?.status as { observedGeneration?: number }).observedGeneration === 3 || undefined;
    }, 'observedGeneration to reach 3 once every child write succeeds');
  });

  it('refuses more children than --max-children-per-parent before writing any', async () => {
    const child = await establishThenBreak('flood', 'flood');
    const message = await syncErrorMatching('flood', /max-children-per-parent/);
    expect(message).toContain(`${MAX_CHILDREN + 1} desired children, more than --max-children-per-parent allows (${MAX_CHILDREN})`);
    await expectChildKept(child);
    expect(await clients.writer.get(configMapRef('flood-flood-0'))).toBeUndefined();
    expect(colorOf(await clients.writer.get(parentRef('flood')))).toBe('first');
  });
});
