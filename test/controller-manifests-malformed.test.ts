/**
 * Malformed CompositeController and DecoratorController manifests on the real control plane. Each row
 * changes one thing in a valid manifest and says what the user sees: either the API server refuses the
 * apply (the CRD schema), naming the field, or loom takes the object and reports it with `Ready=False`,
 * a reason, and a message naming the field path. None of them stops loom: a valid controller applied
 * after all of them still converges its parent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { spawnLoom, type LoomProcess } from './support/loom-process.ts';
import { base, GROUP_VERSION, LABEL, PARENT, ROWS, set, type Base, type Manifest, type Row } from './support/malformed-manifests.ts';
import { createParentCrd, TEST_GROUP } from './support/test-crd.ts';

/** The controller applied after all the malformed ones. */
const VALID = 'malformed-valid';

let clients: TestClients;
let loom: TestLoom;
let namespace: string;

/** What became of one row: refused at apply, or the `Ready` condition loom set. */
type Outcome = { refused: string } | { ready: Condition };
interface Condition {
  status: string;
  reason: string;
  message: string;
}

const KIND_RESOURCES: Record<Base, string> = { cc: 'compositecontrollers', dc: 'decoratorcontrollers' };
type ReadyOf = (kind: Base, name: string) => Promise<Condition | undefined>;

/**
 * The `Ready` conditions of this file's controllers by kind and name, from one list per kind shared
 * by every waiting row (at most one pair of requests every 250 ms, however many rows wait).
 */
function conditionBoard(): ReadyOf {
  let latest: { at: number; lists: Promise<Record<Base, Map<string, Condition>>> } | undefined;
  const list = async (kind: Base): Promise<Map<string, Condition>> => {
    const found = await clients.client.request<{ items: KubeObject[] }>({
      method: 'GET', path: `/apis/${GROUP_VERSION}/${KIND_RESOURCES[kind]}`, query: { labelSelector: `loom-test in (${LABEL}, ${LABEL}-restart)` },
    });
    return new Map(found.items.flatMap((o) => {
      const ready = (o.status as { conditions?: (Condition & { type: string })[] } | undefined)?.conditions?.find((c) => c.type === 'Ready');
      return ready ? [[o.metadata.name ?? '', ready] as const] : [];
    }));
  };
  return async (kind, name) => {
    if (!latest || performance.now() - latest.at > 250) {
      latest = { at: performance.now(), lists: Promise.all([list('cc'), list('dc')]).then(([cc, dc]) => ({ cc, dc })) };
    }
    return (await latest.lists)[kind].get(name);
  };
}

/** Applies the row's manifest and waits for its answer: a refusal, or the Ready condition it settles on. */
async function outcomeOf(r: Row, manifest: Manifest): Promise<Outcome> {
  try {
    await clients.apply(manifest);
  } catch (err) {
    return { refused: err instanceof Error ? err.message : String(err) };
  }
  const name = manifest.metadata.name!;
  const runs = r.expect.by === 'accepted' || r.expect.by === 'warned';
  const settled = (c: Condition | undefined) => (runs ? c?.status === 'True' : c !== undefined);
  const ready = await eventually(async () => {
    const c = await readyOf(r.kind, name);
    return settled(c) ? c : undefined;
  }, `a Ready condition on ${name}`, 45_000);
  return { ready };
}

/** The ideal: refused naming the field, or Ready as expected with the field path in the message. */
function expectIdeal(r: Row, outcome: Outcome): void {
  if (r.expect.by === 'api') {
    expect(outcome, 'refused by the API server').toHaveProperty('refused');
    expect((outcome as { refused: string }).refused).toContain(r.path);
    return;
  }
  expect(outcome, 'taken by the API server, with a Ready condition').toHaveProperty('ready');
  const { ready } = outcome as { ready: Condition };
  if (r.expect.by === 'accepted') {
    expect(ready).toMatchObject({ status: 'True', reason: 'Started' });
    return;
  }
  if (r.expect.by === 'warned') {
    expect(ready).toMatchObject({ status: 'True', reason: 'StartedWithWarnings' });
    expect(ready.message).toContain(r.path);
    return;
  }
  expect(ready).toMatchObject({ status: 'False', reason: r.expect.reason });
  expect(ready.message).toContain(r.path);
}

const outcomes = new Map<Row, Promise<Outcome>>();
let readyOf: ReadyOf;
const parentOf = (name: string, caseLabel: string): KubeObject => ({
  apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, metadata: { name, namespace, labels: { case: caseLabel } }, spec: {},
});
const childOf = (parent: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${parent}-child` });

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, PARENT);
  loom = await startTestLoom(LABEL);
  readyOf = conditionBoard();
  // All at once: each row waits only for its own answer.
  ROWS.forEach((r, i) => {
    const outcome = outcomeOf(r, r.mutate(base(r.kind, `malformed-${r.kind}-${i}`)));
    outcome.catch(() => undefined); // Reported by the row's own test.
    outcomes.set(r, outcome);
  });
});

afterAll(async () => {
  await loom?.stop();
});

describe('malformed controller manifests', () => {
  it('cover at least 30 cases, both layers and both kinds', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(ROWS.map((r) => r.expect.by))).toEqual(new Set(['api', 'loom', 'accepted', 'warned']));
    expect(new Set(ROWS.map((r) => r.kind))).toEqual(new Set(['cc', 'dc']));
  });

  for (const r of ROWS) it(r.description, async () => expectIdeal(r, await outcomes.get(r)!));
});

/** The events of a cluster-scoped controller object (they live in `default`) by reason: how many Event objects, and their counts added up. */
async function eventCounts(name: string): Promise<Map<string, { objects: number; count: number }>> {
  const events = await clients.client.request<{ items: (KubeObject & { reason?: string; count?: number })[] }>({
    method: 'GET', path: '/api/v1/namespaces/default/events', query: { fieldSelector: `involvedObject.name=${name}` },
  });
  const counts = new Map<string, { objects: number; count: number }>();
  for (const e of events.items) {
    const sum = counts.get(e.reason ?? '') ?? { objects: 0, count: 0 };
    counts.set(e.reason ?? '', { objects: sum.objects + 1, count: sum.count + (e.count ?? 1) });
  }
  return counts;
}

describe('a controller whose start is retried', () => {
  it('says Starting once, however often the start fails, and keeps one CreateError Event whose count rises', async () => {
    const index = ROWS.findIndex((r) => r.description.startsWith('parent resource discovery does not know'));
    const name = `malformed-cc-${index}`;
    await outcomes.get(ROWS[index]!);
    const counts = await eventually(async () => {
      const now = await eventCounts(name);
      return (now.get('CreateError')?.count ?? 0) >= 3 ? now : undefined;
    }, `three CreateError events on ${name}`);
    expect(counts.get('Starting')).toEqual({ objects: 1, count: 1 });
    expect(counts.get('CreateError')?.objects).toBe(1);
  });
});

describe('after all of them', () => {
  it('a valid controller still converges its parent', async () => {
    await Promise.allSettled(outcomes.values());
    await clients.apply(base('cc', VALID));
    await clients.apply(parentOf('still-alive', VALID));
    const child = await eventually(() => childOf('still-alive'), 'the child of the valid controller');
    expect(child.data).toEqual({ from: 'still-alive' });
  });

  it('a resync period longer than a timer can wait does not resync over and over', async () => {
    const name = 'malformed-resync-forever';
    // Each sync writes a new status; status-only changes trigger no sync, so only a resync writes again.
    await clients.apply(set({
      'spec.resyncPeriodSeconds': 2 ** 31 - 1,
      'spec.parentResource.ignoreStatusChanges': true,
      'spec.hooks.sync.jsonata.expression': '{ "children": [], "status": { "syncedAt": $millis() } }',
    })(base('cc', name)));
    await clients.apply(parentOf('resynced', name));
    const get = () => clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, namespace, name: 'resynced' });
    const first = await eventually(async () => {
      const parent = await get();
      return (parent?.status as { syncedAt?: number } | undefined)?.syncedAt === undefined ? undefined : parent;
    }, 'the first status');
    // Let the loop turn while something else converges: another parent of the valid controller.
    await clients.apply(base('cc', VALID));
    await clients.apply(parentOf('witness', VALID));
    await eventually(() => childOf('witness'), 'the child of the witness parent');
    expect((await get())?.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  });
});

describe('two controllers of one parent type that cannot start', () => {
  /**
   * Run by a loom process of their own: before the fix, that loom's event loop never turned again (each
   * failed start re-queued the other, and once both Ready conditions were written a failed start awaited
   * no I/O), which would have stopped this test process too.
   */
  const label = `${LABEL}-restart`;
  const labelled = (m: Manifest): Manifest => ({ ...m, metadata: { ...m.metadata, labels: { 'loom-test': label } } });
  const broken = ['malformed-restart-a', 'malformed-restart-b'];
  const valid = 'malformed-restart-valid';
  let other: LoomProcess | undefined;

  beforeAll(async () => {
    other = await spawnLoom(label);
  });

  afterAll(async () => {
    await other?.kill();
    await Promise.all([...broken, valid].map((name) => clients.writer.delete({ apiVersion: GROUP_VERSION, kind: 'CompositeController', name })));
  });

  it('are each reported with their compile error', async () => {
    const compileError = set({ 'spec.parentResource.apiVersion': 'v1', 'spec.parentResource.resource': 'limitranges', 'spec.hooks.sync.jsonata.expression': '{ "children": [ ] ] }' });
    await Promise.all(broken.map((name) => clients.apply(labelled(compileError(base('cc', name))))));
    for (const name of broken) {
      await eventually(async () => ((await readyOf('cc', name))?.reason === 'CompileError' ? true : undefined), `CompileError on ${name}`);
    }
  });

  it('leave loom working (a failed start wakes only the controllers refused for its parents, so two failing ones cannot wake each other without end)', async () => {
    await clients.apply(labelled(base('cc', valid)));
    await clients.apply(parentOf('restart-witness', valid));
    await eventually(() => childOf('restart-witness'), 'the child of a valid controller of the same loom');
  });
});
