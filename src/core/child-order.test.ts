import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import type { ChildPolicies } from '../api/controller-spec.ts';
import { childOrderOf, findCycle, goingChildren, MAX_ORDER_EDGES, MAX_WAVES, orderKeyOf, removalOrderOf, type DeclaredKind } from './child-order.ts';
import type { ChildDecision } from './child-plan.ts';

/** A desired child: `ConfigMap/a`, `apps/v1 Deployment/web`, with annotations. */
function child(apiVersion: string, kind: string, name: string, { annotations, namespace = 'ns' }: { annotations?: Record<string, string> | undefined; namespace?: string } = {}): KubeObject {
  return { apiVersion, kind, metadata: { name, ...(namespace && { namespace }), ...(annotations && { annotations }) } };
}
const cm = (name: string, annotations?: Record<string, string>) => child('v1', 'ConfigMap', name, { annotations });
const declared: DeclaredKind[] = [
  { apiVersion: 'v1', kind: 'ConfigMap' }, { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'db.example.com/v1', kind: 'Database' }, { apiVersion: 'other.example.com/v1', kind: 'Database' },
  { apiVersion: 'v1', kind: 'Namespace' },
];
const key = (apiVersion: string, kind: string, name: string, namespace = 'ns') => orderKeyOf({ apiVersion, kind, namespace, name });

function order(desired: KubeObject[], rules: Record<string, ChildPolicies> = {}) {
  return childOrderOf({ desired, declared, ruleOf: (obj) => rules[obj.kind] });
}

describe('childOrderOf', () => {
  it('without waves or dependsOn: unordered, every child in wave 0, in desired order', () => {
    const result = order([cm('b'), cm('a')]);
    expect(result).toMatchObject({ ok: true, order: { ordered: false } });
    if (!result.ok) return;
    expect([...result.order.children.values()].map((c) => [c.ref.name, c.wave, c.dependsOn])).toEqual([['b', 0, []], ['a', 0, []]]);
  });

  it.each([
    { name: 'a wave annotation, even 0', desired: [cm('a', { 'loom.dev/wave': '0' })], rules: {} },
    { name: "a wave on the type's rule", desired: [cm('a')], rules: { ConfigMap: { wave: 2 } } },
    { name: 'a dependsOn', desired: [cm('a'), cm('b', { 'loom.dev/depends-on': 'ConfigMap/a' })], rules: {} },
  ])('ordered with $name', ({ desired, rules }) => {
    expect(order(desired, rules)).toMatchObject({ ok: true, order: { ordered: true } });
  });

  it('an annotation wins over the rule; the rule over the default', () => {
    const result = order([cm('a', { 'loom.dev/wave': '-1' }), cm('b')], { ConfigMap: { wave: 3 } });
    if (!result.ok) throw new Error(result.problems.join());
    expect([...result.order.children.values()].map((c) => c.wave)).toEqual([-1, 3]);
  });

  it.each([
    { name: 'kind only (one declared group)', ref: 'Deployment/web', want: key('apps/v1', 'Deployment', 'web') },
    { name: 'kind.group', ref: 'Database.db.example.com/pg', want: key('db.example.com/v1', 'Database', 'pg') },
    { name: 'core group, explicit namespace', ref: 'ConfigMap/ns/a', want: key('v1', 'ConfigMap', 'a') },
    { name: 'a cluster-scoped sibling without namespace', ref: 'Namespace/team', want: key('v1', 'Namespace', 'team', '') },
  ])('resolves $name', ({ ref, want }) => {
    const desired = [
      cm('a'), child('apps/v1', 'Deployment', 'web'), child('db.example.com/v1', 'Database', 'pg'), child('v1', 'Namespace', 'team', { namespace: '' }),
      cm('x', { 'loom.dev/depends-on': ref }),
    ];
    const result = order(desired);
    if (!result.ok) throw new Error(result.problems.join());
    expect(result.order.children.get(key('v1', 'ConfigMap', 'x'))?.dependsOn).toEqual([want]);
  });

  it.each([
    {
      name: 'a sibling that is not desired',
      desired: [cm('a', { 'loom.dev/depends-on': 'ConfigMap/missing' })],
      want: ['ConfigMap ns/a depends on "ConfigMap/missing": it is not among the desired children'],
    },
    {
      name: 'a sibling in another namespace',
      desired: [cm('a'), cm('b', { 'loom.dev/depends-on': 'ConfigMap/other/a' })],
      want: ['ConfigMap ns/b depends on "ConfigMap/other/a": it is not among the desired children'],
    },
    {
      name: 'an ambiguous kind',
      desired: [child('db.example.com/v1', 'Database', 'pg'), cm('a', { 'loom.dev/depends-on': 'Database/pg' })],
      want: ['ConfigMap ns/a depends on "Database/pg": kind Database is ambiguous (groups db.example.com, other.example.com): write Database.<group>'],
    },
    {
      name: 'an undeclared kind',
      desired: [cm('a', { 'loom.dev/depends-on': 'Secret/s' })],
      want: ['ConfigMap ns/a depends on "Secret/s": no declared child type has kind Secret'],
    },
    {
      name: 'a sibling of a higher wave',
      desired: [cm('a', { 'loom.dev/wave': '1' }), cm('b', { 'loom.dev/depends-on': 'ConfigMap/a' })],
      want: ['ConfigMap ns/b (wave 0) depends on ConfigMap ns/a of a higher wave (1)'],
    },
    {
      name: 'a cycle',
      desired: [cm('a', { 'loom.dev/depends-on': 'ConfigMap/c' }), cm('b', { 'loom.dev/depends-on': 'ConfigMap/a' }), cm('c', { 'loom.dev/depends-on': 'ConfigMap/b' })],
      want: ['dependsOn cycle: ConfigMap ns/a → ConfigMap ns/c → ConfigMap ns/b → ConfigMap ns/a'],
    },
    {
      name: 'a child that depends on itself',
      desired: [cm('a', { 'loom.dev/depends-on': 'ConfigMap/a' })],
      want: ['dependsOn cycle: ConfigMap ns/a → ConfigMap ns/a'],
    },
    {
      name: 'annotations that do not parse',
      desired: [cm('a', { 'loom.dev/wave': 'first', 'loom.dev/depends-on': 'configmap' })],
      want: [
        'ConfigMap ns/a: loom.dev/wave: expected an integer, got "first"',
        'ConfigMap ns/a: loom.dev/depends-on: "configmap" is not Kind[.group]/[namespace/]name',
      ],
    },
  ])('refuses $name, naming the children', ({ desired, want }) => {
    expect(order(desired)).toEqual({ ok: false, problems: want });
  });
});

describe('findCycle', () => {
  it.each([
    { name: 'none', graph: { a: ['b'], b: ['c'], c: [] }, want: undefined },
    { name: 'a diamond is no cycle', graph: { a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }, want: undefined },
    { name: 'two nodes', graph: { a: ['b'], b: ['a'] }, want: ['a', 'b', 'a'] },
    { name: 'behind a tail', graph: { x: ['a'], a: ['b'], b: ['a'] }, want: ['a', 'b', 'a'] },
  ])('$name', ({ graph, want }) => {
    const children = new Map(Object.entries(graph).map(([k, dependsOn]) => [k, { dependsOn }]));
    expect(findCycle(children)).toEqual(want);
  });
});

describe('removalOrderOf', () => {
  it('never refuses: bad annotations count as wave 0, unknown siblings are ignored, a cycle leaves only waves', () => {
    const removals = removalOrderOf({
      desired: [
        cm('bad', { 'loom.dev/wave': 'x' }), cm('lost', { 'loom.dev/depends-on': 'ConfigMap/gone' }),
        cm('p', { 'loom.dev/wave': '2', 'loom.dev/depends-on': 'ConfigMap/q' }), cm('q', { 'loom.dev/wave': '2', 'loom.dev/depends-on': 'ConfigMap/p' }),
      ],
      declared, ruleOf: () => undefined,
    });
    expect([...removals.children.values()].map((c) => [c.ref.name, c.wave, c.dependsOn])).toEqual([['bad', 0, []], ['lost', 0, []], ['p', 2, []], ['q', 2, []]]);
  });
});

describe('bounds of one answer', () => {
  const many = (count: number, annotate: (i: number) => Record<string, string>) => Array.from({ length: count }, (_, i) => cm(`c${i}`, annotate(i)));

  it(`refuses more than ${MAX_ORDER_EDGES} dependsOn edges in all, saying so once`, () => {
    // 10,000 children each depending on the same 100 roots: each child is within its own bound, the answer is not.
    const roots = many(100, () => ({}));
    const names = roots.map((r) => `ConfigMap/${r.metadata.name}`).join(',');
    const leaves = Array.from({ length: 10_000 }, (_, i) => cm(`leaf${i}`, { 'loom.dev/depends-on': names }));
    const result = order([...roots, ...leaves]);
    expect(result).toEqual({ ok: false, problems: [`the children name more than ${MAX_ORDER_EDGES} dependsOn siblings in all; at most ${MAX_ORDER_EDGES} per answer`] });
  });

  it(`refuses more than ${MAX_WAVES} distinct waves`, () => {
    const result = order(many(MAX_WAVES + 1, (i) => ({ 'loom.dev/wave': String(i) })));
    expect(result).toEqual({ ok: false, problems: [`the children use ${MAX_WAVES + 1} distinct waves; at most ${MAX_WAVES} per answer`] });
    expect(order(many(MAX_WAVES, (i) => ({ 'loom.dev/wave': String(i) })))).toMatchObject({ ok: true });
  });

  it('finds a cycle through twenty thousand children without overflowing the stack, and names a few of them', () => {
    const count = 20_000;
    const result = order(many(count, (i) => ({ 'loom.dev/depends-on': `ConfigMap/c${(i + 1) % count}` })));
    expect(result).toEqual({ ok: false, problems: [`dependsOn cycle: ${[0, 1, 2, 3, 4, 5, 6].map((i) => `ConfigMap ns/c${i}`).join(' → ')} → … 19992 more → ConfigMap ns/c19999 → ConfigMap ns/c0`] });
  });

  it('a removal order over the bound keeps its waves and drops its dependencies', () => {
    const roots = many(100, () => ({ 'loom.dev/wave': '1' }));
    const names = roots.map((r) => `ConfigMap/${r.metadata.name}`).join(',');
    const leaves = Array.from({ length: 10_000 }, (_, i) => cm(`leaf${i}`, { 'loom.dev/wave': '2', 'loom.dev/depends-on': names }));
    const removals = removalOrderOf({ desired: [...roots, ...leaves], declared, ruleOf: () => undefined });
    const children = [...removals.children.values()];
    expect(children.every((c) => c.dependsOn.length === 0)).toBe(true);
    expect(children.filter((c) => c.wave === 2)).toHaveLength(10_000);
  });
});

describe('goingChildren', () => {
  it('the children this sync deletes, and the unwanted ones already terminating, in observed order', () => {
    const terminating = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, deletionTimestamp: '2026-11-27T06:00:00Z' } });
    const old = terminating(cm('old', { 'loom.dev/wave': '1' }));
    const wanted = terminating(cm('wanted'));
    const observed = [cm('kept'), old, wanted, cm('gone')];
    const ref = (o: KubeObject) => ({ apiVersion: o.apiVersion, kind: o.kind, namespace: 'ns', name: o.metadata.name ?? '' });
    const decisions: ChildDecision[] = [
      { action: 'skip', child: ref(observed[0]!), reason: 'retain' },
      { action: 'skip', child: ref(old), reason: 'terminating' },
      { action: 'skip', child: ref(wanted), reason: 'terminating' },
      { action: 'delete', child: ref(observed[3]!), uid: undefined },
    ];
    const desired = order([cm('wanted')]);
    if (!desired.ok) throw new Error(desired.problems.join());
    // The kept one stays by its policy; the terminating one still desired is no removal.
    expect(goingChildren(decisions, observed, desired.order).map((o) => o.metadata.name)).toEqual(['old', 'gone']);
  });
});
