import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { childOrderOf, orderKeyOf, removalOrderOf, type ChildOrder } from './child-order.ts';
import { describeHold, nextRemovals, nextWrites, type ChildProgress } from './order-steps.ts';

const cm = (name: string, annotations?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ...(annotations && { annotations }) } });
const k = (name: string) => orderKeyOf({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name });
const declared = [{ apiVersion: 'v1', kind: 'ConfigMap' }];

function orderOf(desired: KubeObject[]): ChildOrder {
  const result = childOrderOf({ desired, declared, ruleOf: () => undefined });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.order;
}

const ready: ChildProgress = { state: 'settled', readiness: { status: 'Current', message: '' } };
const pending: ChildProgress = { state: 'pending' };
const failed: ChildProgress = { state: 'failed' };
const inProgress: ChildProgress = { state: 'settled', readiness: { status: 'InProgress', message: 'phase is Pending' } };

/** Progress by child name; absent names are pending. */
const progress = (by: Record<string, ChildProgress>) => (key: string) => by[(JSON.parse(key) as string[])[3] ?? ''] ?? pending;

describe('nextWrites', () => {
  const waves = orderOf([cm('c', { 'loom.dev/wave': '2' }), cm('a', { 'loom.dev/wave': '0' }), cm('b', { 'loom.dev/wave': '1' }), cm('a2', { 'loom.dev/wave': '0' })]);

  it.each([
    { name: 'nothing written: the lowest wave goes, in parallel', by: {}, runnable: ['a', 'a2'], held: ['b', 'c'] },
    { name: 'wave 0 ready: wave 1 goes', by: { a: ready, a2: ready }, runnable: ['b'], held: ['c'] },
    { name: 'one of wave 0 not ready: the rest holds', by: { a: ready, a2: inProgress }, runnable: [], held: ['b', 'c'] },
    { name: 'a failed write holds the waves above', by: { a: failed, a2: ready }, runnable: [], held: ['b', 'c'] },
    { name: 'every wave ready: nothing to do', by: { a: ready, a2: ready, b: ready, c: ready }, runnable: [], held: [] },
  ])('waves: $name', ({ by, runnable, held }) => {
    const steps = nextWrites(waves, progress(by));
    expect(steps.runnable.map((key) => (JSON.parse(key) as string[])[3])).toEqual(runnable);
    expect(steps.held.map((h) => h.ref.name)).toEqual(held);
  });

  it('names a predecessor once when it is both in a lower wave and depended on', () => {
    const order = orderOf([cm('a'), cm('b'), cm('c', { 'loom.dev/wave': '1', 'loom.dev/depends-on': 'ConfigMap/a' })]);
    const [hold] = nextWrites(order, progress({ a: inProgress, b: inProgress })).held;
    expect(hold?.waitsFor.map((w) => w.ref.name)).toEqual(['a', 'b']);
    expect(hold?.more).toBe(0);
  });

  it('a held child names its first unready predecessors with their readiness', () => {
    const steps = nextWrites(waves, progress({ a: ready, a2: inProgress }));
    expect(steps.held.map(describeHold)).toEqual([
      'ConfigMap ns/b waits for ConfigMap ns/a2 (InProgress: phase is Pending)',
      'ConfigMap ns/c waits for ConfigMap ns/a2 (InProgress: phase is Pending), ConfigMap ns/b (held)',
    ]);
  });

  it('names at most three predecessors and counts the rest', () => {
    const many = orderOf([cm('a'), cm('b'), cm('c'), cm('d'), cm('e'), cm('z', { 'loom.dev/wave': '1' })]);
    const steps = nextWrites(many, progress({ a: failed, b: failed, c: failed, d: failed, e: failed }));
    expect(steps.held.map(describeHold)).toEqual([
      'ConfigMap ns/z waits for ConfigMap ns/a (write failed), ConfigMap ns/b (write failed), ConfigMap ns/c (write failed) and 2 more',
    ]);
  });

  it('dependsOn within one wave: independent children go at once, dependents after', () => {
    const graph = orderOf([cm('app', { 'loom.dev/depends-on': 'ConfigMap/db' }), cm('db'), cm('cache')]);
    expect(nextWrites(graph, progress({})).runnable).toEqual([k('db'), k('cache')]);
    expect(nextWrites(graph, progress({ db: inProgress, cache: ready })).held.map(describeHold))
      .toEqual(['ConfigMap ns/app waits for ConfigMap ns/db (InProgress: phase is Pending)']);
    expect(nextWrites(graph, progress({ db: ready })).runnable).toEqual([k('app'), k('cache')]);
  });

  it('without order every child goes at once', () => {
    expect(nextWrites(orderOf([cm('b'), cm('a')]), progress({})).runnable).toEqual([k('b'), k('a')]);
  });
});

describe('nextRemovals', () => {
  const removals = removalOrderOf({
    desired: [cm('low'), cm('mid', { 'loom.dev/wave': '1' }), cm('top', { 'loom.dev/wave': '2' }), cm('user', { 'loom.dev/wave': '1', 'loom.dev/depends-on': 'ConfigMap/mid' })],
    declared, ruleOf: () => undefined,
  });
  const name = (key: string) => (JSON.parse(key) as string[])[3];

  it.each([
    { name: 'all there: only the highest wave goes', gone: [], runnable: ['top'], held: ['low', 'mid', 'user'] },
    { name: 'top gone: the users of mid go, mid waits for them', gone: ['top'], runnable: ['user'], held: ['low', 'mid'] },
    { name: 'top and user gone: mid goes', gone: ['top', 'user'], runnable: ['mid'], held: ['low'] },
    { name: 'all above gone: the lowest goes', gone: ['top', 'user', 'mid'], runnable: ['low'], held: [] },
  ])('$name', ({ gone, runnable, held }) => {
    const steps = nextRemovals(removals, { pending: (key) => !gone.includes(name(key) ?? ''), exists: (key) => !gone.includes(name(key) ?? '') });
    expect(steps.runnable.map(name)).toEqual(runnable);
    expect(steps.held.map((h) => h.ref.name)).toEqual(held);
  });

  it('a held deletion says what goes first', () => {
    const steps = nextRemovals(removals, { pending: () => true, exists: () => true });
    expect(steps.held.map(describeHold)).toEqual([
      'deleting ConfigMap ns/low waits for ConfigMap ns/top (to be deleted first), ConfigMap ns/mid (to be deleted first), ConfigMap ns/user (to be deleted first)',
      'deleting ConfigMap ns/mid waits for ConfigMap ns/user (to be deleted first), ConfigMap ns/top (to be deleted first)',
      'deleting ConfigMap ns/user waits for ConfigMap ns/top (to be deleted first)',
    ]);
  });

  it('a deletion made in this sync still holds the ones below until it is seen gone', () => {
    const steps = nextRemovals(removals, { pending: (key) => name(key) !== 'top', exists: () => true });
    expect(steps.runnable).toEqual([]);
  });
});

describe('a large valid answer', () => {
  // 10,000 children in wave 1, each depending on the same 10 roots in wave 0: 100,000 edges, the bound's worth.
  // Stepped in a linear number of steps; a step quadratic in the children would take minutes here.
  const roots = Array.from({ length: 10 }, (_, i) => cm(`root${i}`));
  const names = roots.map((r) => `ConfigMap/${r.metadata.name}`).join(',');
  const leaves = Array.from({ length: 10_000 }, (_, i) => cm(`leaf${i}`, { 'loom.dev/wave': '1', 'loom.dev/depends-on': names }));
  const size = roots.length + leaves.length + 10 * leaves.length;

  it('writes wave by wave, asking for each child a bounded number of times', () => {
    const order = orderOf([...roots, ...leaves]);
    let asked = 0;
    const by: Record<string, ChildProgress> = {};
    const progressOf = (key: string) => {
      asked++;
      return progress(by)(key);
    };
    const first = nextWrites(order, progressOf);
    expect(first.runnable).toHaveLength(10);
    expect(first.held).toHaveLength(10_000);
    for (const root of roots) by[root.metadata.name ?? ''] = ready;
    expect(nextWrites(order, progressOf).runnable).toHaveLength(10_000);
    expect(asked).toBeLessThan(4 * size);
  });

  it('deletes in reverse, the roots held by their 10,000 dependents', () => {
    const removals = removalOrderOf({ desired: [...roots, ...leaves], declared, ruleOf: () => undefined });
    let asked = 0;
    const all = () => {
      asked++;
      return true;
    };
    const steps = nextRemovals(removals, { pending: all, exists: all });
    expect(steps.runnable).toHaveLength(10_000);
    expect(steps.held.map(describeHold).slice(0, 1)).toEqual(['deleting ConfigMap ns/root0 waits for ConfigMap ns/leaf0 (to be deleted first), ConfigMap ns/leaf1 (to be deleted first), ConfigMap ns/leaf2 (to be deleted first) and 9997 more']);
    expect(asked).toBeLessThan(4 * size);
  });
});

describe('a teardown over the bound', () => {
  it('orders and steps 10,000 going children that each depend on the same 100 roots (observed annotations are never refused)', () => {
    // Over the bound of edges the removal order keeps only waves: quadratic in the dependents, this took minutes.
    const roots = Array.from({ length: 100 }, (_, i) => cm(`root${i}`));
    const names = roots.map((r) => `ConfigMap/${r.metadata.name}`).join(',');
    const leaves = Array.from({ length: 10_000 }, (_, i) => cm(`leaf${i}`, { 'loom.dev/wave': '1', 'loom.dev/depends-on': names }));
    const removals = removalOrderOf({ desired: [...roots, ...leaves], declared, ruleOf: () => undefined });
    let asked = 0;
    const all = () => {
      asked++;
      return true;
    };
    const steps = nextRemovals(removals, { pending: all, exists: all });
    expect(steps.runnable).toHaveLength(10_000);
    expect(steps.held).toHaveLength(100);
    expect(asked).toBeLessThan(4 * 10_100);
  });
});
