import { describe, expect, it } from 'vitest';
import type { LabelSelector } from '../api/label-selector.ts';
import type { KubeObject, ObjectMeta, OwnerReference } from '../api/object.ts';
import { normaliseDesiredChildren, type DeclaredChildType, type DesiredChildrenOptions, type DesiredChildrenResult } from './desired-children.ts';

const UID = 'uid-parent';
const ourRef: OwnerReference = { apiVersion: 'ctl.example.com/v1', kind: 'Web', name: 'web', uid: UID, controller: true, blockOwnerDeletion: true };

const declaredTypes: DeclaredChildType[] = [
  { apiVersion: 'v1', kind: 'Pod', namespaced: true },
  { apiVersion: 'apps/v1', kind: 'Deployment', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespaced: false },
];

function parent(namespace = 'default'): KubeObject {
  const metadata: ObjectMeta = { name: 'web', uid: UID };
  if (namespace) metadata.namespace = namespace;
  return { apiVersion: 'ctl.example.com/v1', kind: 'Web', metadata };
}

function pod(name: string, metadata: Partial<ObjectMeta> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' }, ...metadata }, spec: { containers: [] } };
}

function unlabelled(name: string): KubeObject {
  const child = pod(name);
  delete child.metadata.labels;
  return child;
}

function clusterRole(name: string, metadata: Partial<ObjectMeta> = {}): KubeObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels: { app: 'web' }, ...metadata } };
}

const selector: LabelSelector = { matchLabels: { app: 'web' } };

function run(children: KubeObject[], overrides: Partial<DesiredChildrenOptions> = {}): DesiredChildrenResult {
  return normaliseDesiredChildren({ parent: parent(), children, declaredTypes, selector, generateSelector: false, ...overrides });
}

function okChildren(result: DesiredChildrenResult): KubeObject[] {
  if (!result.ok) throw new Error(`expected ok, got problems: ${result.problems.join('; ')}`);
  return result.children;
}

function problems(result: DesiredChildrenResult): string[] {
  if (result.ok) throw new Error('expected problems, got ok');
  return result.problems;
}

describe('normaliseDesiredChildren: valid children', () => {
  it('defaults the namespace, adds the controller reference and keeps the rest', () => {
    const [child] = okChildren(run([pod('a')]));
    expect(child).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a', namespace: 'default', labels: { app: 'web' }, ownerReferences: [ourRef] },
      spec: { containers: [] },
    });
  });

  it('does not modify its inputs', () => {
    const children = [pod('a', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u' }] })];
    const before = structuredClone(children);
    const p = parent();
    const pBefore = structuredClone(p);
    okChildren(normaliseDesiredChildren({ parent: p, children, declaredTypes, selector, generateSelector: true }));
    expect(children).toEqual(before);
    expect(p).toEqual(pBefore);
  });

  it('accepts an explicit namespace equal to the parent\'s', () => {
    expect(okChildren(run([pod('a', { namespace: 'default' })]))[0]?.metadata.namespace).toBe('default');
  });

  it('keeps the namespace a namespaced child of a cluster-scoped parent names', () => {
    const result = run([pod('a', { namespace: 'team-a' }), pod('b', { namespace: 'team-b' })], { parent: parent('') });
    expect(okChildren(result).map((c) => c.metadata.namespace)).toEqual(['team-a', 'team-b']);
  });

  it.each([['namespaced', 'default'], ['cluster-scoped', '']])('gives a cluster-scoped child of a %s parent no namespace', (_scope, ns) => {
    const [child] = okChildren(run([clusterRole('r', { namespace: '' })], { parent: parent(ns) }));
    expect(child?.metadata).not.toHaveProperty('namespace');
    expect(child?.metadata.ownerReferences).toEqual([{ ...ourRef }]);
  });

  it('keeps other owner references and appends ours', () => {
    const other: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u' };
    expect(okChildren(run([pod('a', { ownerReferences: [other] })]))[0]?.metadata.ownerReferences).toEqual([other, ourRef]);
  });

  it('replaces a reference to the parent with the canonical controller reference, in place', () => {
    const other: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u' };
    const partial: OwnerReference = { apiVersion: 'ctl.example.com/v1', kind: 'Web', name: 'web', uid: UID };
    const [child] = okChildren(run([pod('a', { ownerReferences: [partial, other] })]));
    expect(child?.metadata.ownerReferences).toEqual([ourRef, other]);
  });

  it('returns children in response order', () => {
    expect(okChildren(run([pod('b'), pod('a'), clusterRole('c')])).map((c) => c.metadata.name)).toEqual(['b', 'a', 'c']);
  });

  it('accepts an empty list', () => {
    expect(run([])).toEqual({ ok: true, children: [] });
  });
});

describe('normaliseDesiredChildren: generateSelector', () => {
  const generated: LabelSelector = { matchLabels: { 'controller-uid': UID } };

  it('injects controller-uid into children without it', () => {
    const result = run([pod('a'), unlabelled('b')], { selector: generated, generateSelector: true });
    expect(okChildren(result).map((c) => c.metadata.labels)).toEqual([{ app: 'web', 'controller-uid': UID }, { 'controller-uid': UID }]);
  });

  it('does not overwrite a controller-uid the hook set, which then fails the selector', () => {
    const result = run([pod('a', { labels: { 'controller-uid': 'someone-else' } })], { selector: generated, generateSelector: true });
    expect(problems(result)).toEqual([`labels on desired child Pod default/a don't match parent selector controller-uid=${UID}`]);
  });

  it('injects nothing without generateSelector', () => {
    expect(okChildren(run([pod('a')]))[0]?.metadata.labels).toEqual({ app: 'web' });
  });
});

describe('normaliseDesiredChildren: stamped labels', () => {
  it('adds the labels to every child, over the hook\'s own, without touching the input', () => {
    const input = pod('a', { labels: { app: 'web', 'loom.dev/shard': '9' } });
    const [child] = okChildren(run([input], { labels: { 'loom.dev/shard': '3' } }));
    expect(child!.metadata.labels).toEqual({ app: 'web', 'loom.dev/shard': '3' });
    expect(input.metadata.labels).toEqual({ app: 'web', 'loom.dev/shard': '9' });
  });
});

describe('normaliseDesiredChildren: problems', () => {
  it.each<[string, KubeObject, Partial<DesiredChildrenOptions>, string]>([
    ['undeclared kind', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', labels: { app: 'web' } } }, {},
      'desired child Secret s has type Secret.v1, which is not a declared child resource (declared: Pod.v1, Deployment.apps/v1, ClusterRole.rbac.authorization.k8s.io/v1)'],
    ['declared kind in another version', { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'd', labels: { app: 'web' } } }, {},
      'desired child Deployment d has type Deployment.apps/v1beta1, which is not a declared child resource'],
    ['no declared types at all', pod('a'), { declaredTypes: [] }, '(declared: none)'],
    ['another namespace', pod('a', { namespace: 'kube-system' }), {}, "desired child Pod kube-system/a must be in its parent's namespace default"],
    ['no namespace under a cluster-scoped parent', pod('a'), { parent: parent('') }, 'desired child Pod a needs metadata.namespace: its parent Web web is cluster-scoped'],
    ['a namespace on a cluster-scoped child', clusterRole('r', { namespace: 'default' }), {}, 'desired child ClusterRole default/r is cluster-scoped and must not set metadata.namespace'],
    ['labels not matching', pod('a', { labels: { app: 'db' } }), {}, "labels on desired child Pod default/a don't match parent selector app=web"],
    ['no labels', unlabelled('a'), {}, "labels on desired child Pod default/a don't match parent selector app=web"],
    ['another controller', pod('a', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'x', controller: true }] }), {},
      'desired child Pod default/a is already controlled by ReplicaSet rs'],
    ['no name', { apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'p-' } }, {}, 'desired child children[0] has no metadata.name'],
    ['nothing', { metadata: {} } as KubeObject, {}, 'desired child children[0] has no apiVersion, kind, metadata.name'],
  ])('rejects %s', (_name, child, overrides, message) => {
    const found = problems(run([child], overrides));
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(message);
  });

  it('prints every kind of selector requirement the way kubectl does', () => {
    const complex: LabelSelector = {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['a', 'b'] },
        { key: 'zone', operator: 'NotIn', values: ['x'] },
        { key: 'team', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    };
    expect(problems(run([pod('a')], { selector: complex }))).toEqual([
      "labels on desired child Pod default/a don't match parent selector app=web,tier in (a,b),zone notin (x),team,!legacy",
    ]);
  });

  it('reports duplicates by group, kind, namespace and name', () => {
    const deployment = (apiVersion: string): KubeObject => ({ apiVersion, kind: 'Deployment', metadata: { name: 'd', labels: { app: 'web' } } });
    const types = [...declaredTypes, { apiVersion: 'apps/v1beta2', kind: 'Deployment', namespaced: true }];
    const result = run([pod('a'), pod('b'), pod('a', { namespace: 'default' }), deployment('apps/v1'), deployment('apps/v1beta2')], { declaredTypes: types });
    expect(problems(result)).toEqual([
      'desired child Pod default/a appears more than once (children[0] and children[2])',
      'desired child Deployment default/d appears more than once (children[3] and children[4])',
    ]);
  });

  it('does not treat equal names of different kinds or namespaces as duplicates', () => {
    const deployment: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'a', labels: { app: 'web' } } };
    const result = run([pod('a', { namespace: 'x' }), pod('a', { namespace: 'y' }), deployment], { parent: parent('') });
    expect(problems(result)).toEqual(['desired child Deployment a needs metadata.namespace: its parent Web web is cluster-scoped']);
    expect(okChildren(run([pod('a'), { ...deployment }]))).toHaveLength(2);
  });

  it('lists every problem, not just the first', () => {
    const result = run([pod('ok'), pod('bad-labels', { labels: {} }), pod('elsewhere', { namespace: 'x' }), clusterRole('r', { namespace: 'default' })]);
    expect(problems(result)).toEqual([
      "labels on desired child Pod default/bad-labels don't match parent selector app=web",
      "desired child Pod x/elsewhere must be in its parent's namespace default",
      'desired child ClusterRole default/r is cluster-scoped and must not set metadata.namespace',
    ]);
  });
});

describe('normaliseDesiredChildren: --max-children-per-parent', () => {
  it('refuses more children than allowed, naming both counts, without checking them', () => {
    const flood = [pod('a'), pod('b'), { kind: 'not even valid' } as unknown as KubeObject];
    expect(problems(run(flood, { maxChildren: 2 }))).toEqual(['3 desired children, more than --max-children-per-parent allows (2)']);
  });

  it('accepts up to the limit, and any number with 0 or none', () => {
    expect(okChildren(run([pod('a'), pod('b')], { maxChildren: 2 }))).toHaveLength(2);
    expect(okChildren(run([pod('a'), pod('b'), pod('c')], { maxChildren: 0 }))).toHaveLength(3);
  });
});

describe('normaliseDesiredChildren: ready for the apply strategy', () => {
  const withServerFields = (): KubeObject => ({ ...pod('a', { resourceVersion: '7', uid: 'old' }), status: { phase: 'Running' } });

  it('strips what a server-side apply must not send', () => {
    const [child] = okChildren(run([withServerFields()], { applyStrategy: 'server-side-apply' }));
    expect(child?.status).toBeUndefined();
    expect(child?.metadata.resourceVersion).toBeUndefined();
    expect(child?.metadata.ownerReferences).toEqual([ourRef]);
  });

  it('keeps the hook\'s object as it is for dynamic apply', () => {
    const [child] = okChildren(run([withServerFields()], { applyStrategy: 'dynamic-apply' }));
    expect(child?.status).toEqual({ phase: 'Running' });
    expect(child?.metadata.resourceVersion).toBe('7');
  });
});
