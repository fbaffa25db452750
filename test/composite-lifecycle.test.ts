/**
 * The parent lifecycle of a CompositeController on the real control plane (docs/concepts.md,
 * "Finalizers"; docs/hook-protocol.md, "Object maps and hook versions"): `resyncAfterSeconds` brings a
 * delayed sync with no change to the parent, a finalize hook holds a deleted parent with the
 * controller's finalizer until it answers `finalized: true`, the hook version decides how the `children`
 * map is keyed, and a status write that meets a newer parent is retried rather than lost.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'lifecycle';
const PARENT = TEST_PARENT_KINDS.lifecycle;
let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let hookUrl: string;
let namespace: string;

interface HookRequest {
  parent: KubeObject & { spec: { selector: { matchLabels: Record<string, string> } } };
  children: Record<string, Record<string, KubeObject>>;
  finalizing: boolean;
}

/** One call of a hook, as the test's hook server saw it. */
interface HookCall {
  path: string;
  parent: string;
  resourceVersion: string | undefined;
  finalizing: boolean;
  children: Record<string, Record<string, KubeObject>>;
}

const calls: HookCall[] = [];
/** Flipped by the finalize case: what the finalize hook answers in `finalized`. */
const finalizeState = { finalized: false };

const callsTo = (path: string, parent: string): HookCall[] => calls.filter((c) => c.path === path && c.parent === parent);
/** A probe for `eventually` over the hook server's own record. */
const recorded = <T>(probe: () => T | undefined) => (): Promise<T | undefined> => Promise.resolve(probe());

/** One ConfigMap per parent, labelled with the parent's selector so it may be claimed. */
function configMapFor(parent: HookRequest['parent']): KubeObject {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: `${parent.metadata.name}-cm`, labels: parent.spec.selector.matchLabels },
    data: { parent: parent.metadata.name! },
  };
}

/** Answers per route; every response keeps the same status so status writes do not cause extra syncs. */
const answers: Record<string, (req: HookRequest) => object> = {
  'resync/sync': () => ({ status: { phase: 'resyncing' }, children: [], resyncAfterSeconds: 1 }),
  'finalize/sync': () => ({ status: { phase: 'ok' }, children: [] }),
  'finalize/finalize': () => (finalizeState.finalized
    ? { status: { phase: 'ok' }, children: [], finalized: true }
    // Without an event, only the delayed resync calls the finalize hook again.
    : { status: { phase: 'ok' }, children: [], finalized: false, resyncAfterSeconds: 1 }),
  'v1/sync': (req) => ({ status: { phase: 'ok' }, children: [configMapFor(req.parent)] }),
  'v2/sync': (req) => ({ status: { phase: 'ok' }, children: [configMapFor(req.parent)] }),
  'stale/sync': () => ({ status: { phase: 'ok' }, children: [] }),
};

/**
 * Before answering its first call, the `stale` hook writes the parent's status itself, so the parent
 * loom holds is one version behind when it writes the hook's status.
 */
const beforeAnswer: Record<string, (req: HookRequest) => Promise<void>> = {
  'stale/sync': async (req) => {
    if (callsTo('stale/sync', req.parent.metadata.name!).length > 1) return;
    const current = await clients.writer.get(parentRef(req.parent.metadata.name!));
    await clients.writer.replaceStatus({ ...current!, status: { phase: 'written-by-someone-else' } });
  },
};

function startHook(): FastifyInstance {
  const server = Fastify();
  server.post<{ Params: { kase: string; hook: string } }>('/:kase/:hook', async (request, reply) => {
    const path = `${request.params.kase}/${request.params.hook}`;
    const req = request.body as HookRequest;
    calls.push({
      path, parent: req.parent.metadata.name!, resourceVersion: req.parent.metadata.resourceVersion,
      finalizing: req.finalizing, children: req.children,
    });
    await beforeAnswer[path]?.(req);
    const answer = answers[path];
    return answer ? answer(req) : reply.code(404).send({ error: `no route ${path}` });
  });
  return server;
}

/** A CompositeController for one case; it handles only parents labelled `case=<kase>`. */
function controller(kase: string, hooks: Record<string, object>, parentOptions: object = {}): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: `lifecycle-${kase}`, labels: { 'loom-test': LABEL } },
    spec: {
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: PARENT.plural, labelSelector: { matchLabels: { case: kase } }, ...parentOptions },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks,
    },
  };
}

const webhook = (kase: string, which: string, version = 'v1') => ({ version, webhook: { url: `${hookUrl}/${kase}/${which}` } });

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), 'lifecycle');
  await createParentCrd(clients, PARENT);
  hook = startHook();
  hookUrl = await hook.listen({ host: '127.0.0.1', port: 0 });
  loom = await startTestLoom(LABEL);
  await clients.apply(controller('resync', { sync: webhook('resync', 'sync') }));
  await clients.apply(controller('finalize', { sync: webhook('finalize', 'sync'), finalize: webhook('finalize', 'finalize') }));
  await clients.apply(controller('v1', { sync: webhook('v1', 'sync', 'v1') }));
  await clients.apply(controller('v2', { sync: webhook('v2', 'sync', 'v2') }));
  await clients.apply(controller('stale', { sync: webhook('stale', 'sync') }, { ignoreStatusChanges: true }));
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
});

const parent = (name: string, kase: string): KubeObject => ({
  apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind,
  metadata: { name, namespace, labels: { case: kase } },
  spec: { selector: { matchLabels: { lifecycle: name } } },
});
const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, namespace, name });

describe('CompositeController parent lifecycle', () => {
  it('calls the sync hook again after resyncAfterSeconds, with no change to the parent', async () => {
    await clients.apply(parent('resync', 'resync'));
    // Three calls that saw the same parent version: nothing about the parent changed between them.
    const repeated = await eventually(recorded(() => {
      const versions = callsTo('resync/sync', 'resync').map((c) => c.resourceVersion);
      const counts = new Map<string | undefined, number>();
      for (const v of versions) counts.set(v, (counts.get(v) ?? 0) + 1);
      const [version, count] = [...counts].find(([, n]) => n >= 3) ?? [];
      return count === undefined ? undefined : version;
    }), 'three sync calls for one parent version');
    const current = await clients.writer.get(parentRef('resync'));
    expect(current?.metadata.resourceVersion).toBe(repeated);
    expect(callsTo('resync/sync', 'resync').every((c) => !c.finalizing)).toBe(true);
  });

  it('holds a deleted parent with its finalizer until the finalize hook answers finalized: true', async () => {
    const finalizer = 'metacontroller.io/compositecontroller-lifecycle-finalize';
    await clients.apply(parent('fin', 'finalize'));
    const held = await eventually(async () => {
      const current = await clients.writer.get(parentRef('fin'));
      return current?.metadata.finalizers?.includes(finalizer) ? current : undefined;
    }, 'the parent to get the finalizer');
    expect(held.metadata.finalizers).toEqual([finalizer]);
    await eventually(recorded(() => callsTo('finalize/sync', 'fin')[0]), 'a sync call');
    expect(callsTo('finalize/sync', 'fin').every((c) => !c.finalizing)).toBe(true);

    await clients.writer.delete(parentRef('fin'));
    // Two finalize calls answered `finalized: false`: the parent has been held across a resync.
    await eventually(recorded(() => callsTo('finalize/finalize', 'fin')[1]), 'two finalize calls');
    expect(callsTo('finalize/finalize', 'fin').every((c) => c.finalizing)).toBe(true);
    const terminating = await clients.writer.get(parentRef('fin'));
    expect(terminating?.metadata.deletionTimestamp).toBeDefined();
    expect(terminating?.metadata.finalizers).toEqual([finalizer]);

    finalizeState.finalized = true;
    const gone = await eventually(async () => ((await clients.writer.get(parentRef('fin'))) ? undefined : true), 'the parent to be deleted');
    expect(gone).toBe(true);
  });

  it.each([
    { version: 'v1', key: (_ns: string, name: string) => name },
    { version: 'v2', key: (ns: string, name: string) => `${ns}/${name}` },
  ])('keys the children map for hook version $version', async ({ version, key }) => {
    const name = `keys-${version}`;
    await clients.apply(parent(name, version));
    const seen = await eventually(recorded(() => callsTo(`${version}/sync`, name)
      .map((c) => c.children['ConfigMap.v1'] ?? {}).find((m) => Object.keys(m).length > 0)), `a ${version} sync call that observes the child`);
    expect(Object.keys(seen)).toEqual([key(namespace, `${name}-cm`)]);
    expect(Object.values(seen)[0]?.metadata.name).toBe(`${name}-cm`);
  });

  it('writes the status again after a Conflict, even when ignoreStatusChanges hides the newer parent', async () => {
    await clients.apply(parent('stale', 'stale'));
    // The first status write meets a newer parent (Conflict). The event for that newer parent is a
    // status-only change, filtered out by ignoreStatusChanges: only a retry of the sync writes `ok`.
    const written = await eventually(async () => {
      const current = await clients.writer.get(parentRef('stale'));
      return (current?.status as { phase?: string } | undefined)?.phase === 'ok' ? current : undefined;
    }, 'the hook status to replace the status written meanwhile');
    expect(written.status).toMatchObject({ phase: 'ok' });
    const versions = callsTo('stale/sync', 'stale').map((c) => c.resourceVersion);
    expect(versions.length).toBeGreaterThanOrEqual(2);
    expect(versions[1]).not.toBe(versions[0]);
  });
});
