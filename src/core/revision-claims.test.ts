import { describe, expect, it } from 'vitest';
import type { ControllerRevision, ControllerRevisionChildren } from '../api/controller-revision.ts';
import type { KubeObject } from '../api/object.ts';
import {
  addChild, childLookup, claimedRefs, cleanClaims, countChildren, refKey, removeChild, revisionWrites, type RevisionChildRef,
} from './revision-claims.ts';

function revision(name: string, children?: ControllerRevisionChildren[], extra: Partial<ControllerRevision['metadata']> = {}): ControllerRevision {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1',
    kind: 'ControllerRevision',
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '3', ...extra },
    parentPatch: { spec: { v: name } },
    ...(children ? { children } : {}),
  };
}

const pods = (...names: string[]): ControllerRevisionChildren => ({ apiGroup: '', kind: 'Pod', names });
const ref = (name: string, kind = 'Pod', apiGroup = ''): RevisionChildRef => ({ apiGroup, kind, name });

describe('childLookup', () => {
  const obj = (apiVersion: string, kind: string, name: string, namespace = 'ns'): KubeObject => ({ apiVersion, kind, metadata: { name, namespace } });

  it('finds by group, kind and name whatever the version and namespace', () => {
    const lookup = childLookup([obj('apps/v1', 'Deployment', 'web'), obj('v1', 'Pod', 'web', 'other')]);
    expect(lookup(ref('web', 'Deployment', 'apps'))?.apiVersion).toBe('apps/v1');
    expect(lookup(ref('web'))?.metadata.namespace).toBe('other');
    expect(lookup(ref('web', 'Deployment', 'extensions'))).toBeUndefined();
    expect(lookup(ref('api'))).toBeUndefined();
  });
});

describe('addChild / removeChild / countChildren', () => {
  it('appends kinds and names once, and removes names', () => {
    const r = revision('r');
    addChild(r, ref('web-1'));
    addChild(r, ref('svc', 'Service'));
    addChild(r, ref('web-0'));
    addChild(r, ref('web-1'));
    expect(r.children).toEqual([pods('web-1', 'web-0'), { apiGroup: '', kind: 'Service', names: ['svc'] }]);
    expect(countChildren(r)).toBe(3);
    removeChild(r, ref('web-1'));
    removeChild(r, ref('absent'));
    removeChild(r, ref('x', 'Secret'));
    expect(claimedRefs(r)).toEqual([ref('web-0'), ref('svc', 'Service')]);
    expect(countChildren(revision('empty'))).toBe(0);
  });
});

describe('cleanClaims', () => {
  const rolling = new Set(['Pod']);
  const wanted = new Set(['web-0', 'web-1', 'web-2', 'svc']);
  const keep = (r: RevisionChildRef): boolean => rolling.has(r.kind) && wanted.has(r.name);

  it.each<{ name: string; revisions: ControllerRevision[]; want: (ControllerRevisionChildren[] | undefined)[]; owners: Record<string, string> }>([
    {
      name: 'keeps valid claims',
      revisions: [revision('latest', [pods('web-0')]), revision('old', [pods('web-1', 'web-2')])],
      want: [[pods('web-0')], [pods('web-1', 'web-2')]],
      owners: { 'web-0': 'latest', 'web-1': 'old', 'web-2': 'old' },
    },
    {
      name: 'drops kinds that no longer roll',
      revisions: [revision('latest', [{ apiGroup: '', kind: 'Service', names: ['svc'] }, pods('web-0')])],
      want: [[pods('web-0')]],
      owners: { 'web-0': 'latest' },
    },
    {
      name: 'drops children the latest no longer wants, and entries left empty',
      revisions: [revision('latest', [pods('web-0', 'web-9')]), revision('old', [pods('web-8')])],
      want: [[pods('web-0')], []],
      owners: { 'web-0': 'latest' },
    },
    {
      name: 'gives a doubly claimed child to the first revision (the latest)',
      revisions: [revision('latest', [pods('web-1')]), revision('a', [pods('web-1', 'web-2')]), revision('b', [pods('web-2', 'web-2')])],
      want: [[pods('web-1')], [pods('web-2')], []],
      owners: { 'web-1': 'latest', 'web-2': 'a' },
    },
    { name: 'no children at all', revisions: [revision('latest')], want: [[]], owners: {} },
  ])('$name', ({ revisions, want, owners }) => {
    const claims = cleanClaims(revisions, keep);
    expect(revisions.map((r) => r.children)).toEqual(want);
    expect(Object.fromEntries([...claims].map(([key, r]) => [(JSON.parse(key) as string[])[2], r.metadata.name]))).toEqual(owners);
    expect(claims.has(refKey(ref('web-0')))).toBe('web-0' in owners);
  });
});

describe('revisionWrites', () => {
  it('deletes the unwanted first, then creates or updates the wanted in order', () => {
    const latest = revision('latest', [pods('web-0')]);
    delete latest.metadata.uid;
    delete latest.metadata.resourceVersion;
    const old = revision('old', [pods('web-1')]);
    const gone = revision('gone', [pods('web-2')]);
    const observedOld = revision('old', [pods('web-0', 'web-1')]);
    expect(revisionWrites([observedOld, gone], [latest, old])).toEqual([
      { action: 'delete', name: 'gone', uid: 'uid-gone' },
      { action: 'create', revision: latest },
      { action: 'update', revision: old },
    ]);
  });

  it('skips an update that changes nothing, treating no children like an empty list', () => {
    const observed = [revision('a', [pods('web-0')]), revision('b')];
    expect(revisionWrites(observed, [revision('a', [pods('web-0')]), revision('b', [pods()])])).toEqual([]);
  });

  it('writes without empty kind entries and without an empty children list', () => {
    const writes = revisionWrites([revision('a', [pods('web-0')])], [revision('a', [pods(), { apiGroup: '', kind: 'Service', names: ['svc'] }]), revision('new', [pods()])]);
    expect(writes).toEqual([
      { action: 'update', revision: revision('a', [{ apiGroup: '', kind: 'Service', names: ['svc'] }]) },
      { action: 'create', revision: revision('new') },
    ]);
  });

  it('updates with the observed resourceVersion', () => {
    const [write] = revisionWrites([revision('a', [pods('x')], { resourceVersion: '42' })], [revision('a', [pods('y')], { resourceVersion: '1' })]);
    expect(write).toMatchObject({ action: 'update', revision: { metadata: { resourceVersion: '42' } } });
  });

  it('does not modify the desired revisions', () => {
    const desired = revision('a', [pods()]);
    revisionWrites([], [desired]);
    expect(desired.children).toEqual([pods()]);
  });
});
