import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ControllerRevision } from '../api/controller-revision.ts';
import type { JsonObject } from '../api/hook-wire.ts';
import type { KubeObject } from '../api/object.ts';
import {
  RevisionError, controllerRevisionName, newControllerRevision, parentAtRevision, parentPatchOf, revisionSelector, revisionSet,
  type ParentResource,
} from './controller-revisions.ts';

const catsets: ParentResource = { group: 'ctl.enisoc.com', resource: 'catsets' };

function catSet(spec: JsonObject, extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: 'ctl.enisoc.com/v1',
    kind: 'CatSet',
    metadata: { name: 'web', namespace: 'ns', uid: 'p-1', generation: 4, labels: { team: 'a' } },
    spec,
    status: { ready: 2 },
    ...extra,
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

describe('parentPatchOf', () => {
  const parent = deepFreeze(catSet({ replicas: 3, template: { metadata: { labels: { app: 'web' } }, spec: { image: 'v1' } }, paused: null }));

  it.each([
    { paths: ['spec'], want: { spec: parent.spec } },
    { paths: ['spec.template'], want: { spec: { template: { metadata: { labels: { app: 'web' } }, spec: { image: 'v1' } } } } },
    { paths: ['spec.template.spec', 'spec.replicas'], want: { spec: { template: { spec: { image: 'v1' } }, replicas: 3 } } },
    { paths: ['spec.missing', 'nothing.here'], want: {} },
    { paths: ['spec.paused.deeper'], want: {} },
    { paths: ['spec.paused'], want: { spec: { paused: null } } },
    { paths: ['spec.template', 'spec'], want: { spec: parent.spec } },
    { paths: ['metadata.labels'], want: { metadata: { labels: { team: 'a' } } } },
  ])('copies only $paths', ({ paths, want }) => {
    expect(parentPatchOf(parent, paths)).toEqual(want);
  });

  it('fails on a path through a non-object', () => {
    expect(() => parentPatchOf(parent, ['spec.replicas.x'])).toThrow(RevisionError);
  });

  it('keeps a field named __proto__ a plain key', () => {
    const patch = parentPatchOf(catSet({ ['__proto__']: { polluted: true } }), ['spec.__proto__']);
    expect(Object.keys(patch.spec as object)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('returns a copy', () => {
    const patch = parentPatchOf(parent, ['spec']);
    (patch.spec as JsonObject).replicas = 9;
    expect((parent.spec as JsonObject).replicas).toBe(3);
  });
});

describe('parentAtRevision', () => {
  const current = deepFreeze(catSet({ replicas: 5, template: { spec: { image: 'v2' } } }));

  it('puts the patched subtrees back and keeps everything else current', () => {
    const old = parentAtRevision(current, { spec: { replicas: 3, template: { spec: { image: 'v1' } } } }, ['spec']);
    expect(old.spec).toEqual({ replicas: 3, template: { spec: { image: 'v1' } } });
    expect(old.metadata).toEqual(current.metadata);
    expect(old.status).toEqual(current.status);
  });

  it('leaves a path the patch lacks as it is now', () => {
    const old = parentAtRevision(current, { spec: { template: { spec: { image: 'v1' } } } }, ['spec.template', 'spec.replicas']);
    expect(old.spec).toEqual({ replicas: 5, template: { spec: { image: 'v1' } } });
  });

  it('creates missing objects on the way', () => {
    const old = parentAtRevision(catSet({}), { spec: { template: { spec: { image: 'v1' } } } }, ['spec.template.spec']);
    expect(old.spec).toEqual({ template: { spec: { image: 'v1' } } });
  });

  it('fails when the current parent has a non-object on the way', () => {
    expect(() => parentAtRevision(catSet({ template: 'x' }), { spec: { template: { a: 1 } } }, ['spec.template.a'])).toThrow(RevisionError);
  });

  it('round-trips with parentPatchOf', () => {
    const before = catSet({ replicas: 1, template: { spec: { image: 'v0' } } });
    const patch = parentPatchOf(before, ['spec']);
    expect(parentAtRevision(current, patch, ['spec']).spec).toEqual(before.spec);
  });
});

describe('controllerRevisionName', () => {
  // Golden names from Go 1.26: encoding/json.Marshal of the decoded patch, then crypto/sha1 over the UID
  // and those bytes, then the `<resource>.<group>-<hex>` format — the calls Metacontroller's
  // controllerRevisionName makes.
  it.each([
    {
      parentResource: catsets,
      parentUid: '0b5e2d6c-1111-4222-8333-944455556666',
      patch: { spec: { replicas: 3, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } },
      want: 'catsets.ctl.enisoc.com-9e527b4b4fbe348b42f4be728a093ceda26ec535',
    },
    {
      parentResource: { group: '', resource: 'configs' },
      parentUid: 'uid-2',
      patch: { spec: { note: 'a<b && c>d \u2028 \b\f\n', ratio: 0.5, big: 1e21, tiny: 1e-7, flag: true, nothing: null, list: [1, 'x', {}] } },
      want: 'configs.core-5a2351c97f1ae82bfeae128ae56f86aca8a55f72',
    },
  ])('matches Metacontroller for $want', ({ parentResource, parentUid, patch, want }) => {
    expect(controllerRevisionName({ parentResource, parentUid, patch })).toBe(want);
  });

  it('hashes the UID followed by Go-style JSON with sorted keys and HTML escapes', () => {
    const goJson = '{"spec":{"a":"\\u003c\\u0026\\u003e","b":1}}';
    const hash = createHash('sha1').update(`u-1${goJson}`).digest('hex');
    expect(controllerRevisionName({ parentResource: catsets, parentUid: 'u-1', patch: { spec: { b: 1, a: '<&>' } } })).toBe(`catsets.ctl.enisoc.com-${hash}`);
  });

  it('is the same whatever the key order, and differs with the patch or the UID', () => {
    const name = (parentUid: string, patch: JsonObject): string => controllerRevisionName({ parentResource: catsets, parentUid, patch });
    const a = name('u', { spec: { x: 1, y: { p: 1, q: 2 } } });
    expect(name('u', { spec: { y: { q: 2, p: 1 }, x: 1 } })).toBe(a);
    expect(name('u', { spec: { x: 2, y: { p: 1, q: 2 } } })).not.toBe(a);
    expect(name('v', { spec: { x: 1, y: { p: 1, q: 2 } } })).not.toBe(a);
  });

  it('cuts a long prefix so the name has at most 253 characters', () => {
    const parentResource = { group: `${'g'.repeat(250)}.example.com`, resource: 'things' };
    const name = controllerRevisionName({ parentResource, parentUid: 'u', patch: {} });
    expect(name).toHaveLength(253);
    expect(name.slice(0, 212)).toBe(`things.${'g'.repeat(205)}`);
    expect(name).toMatch(/^.{212}-[0-9a-f]{40}$/);
  });
});

describe('newControllerRevision', () => {
  const parent = deepFreeze(catSet({ template: { metadata: { labels: { app: 'web', tier: 'front' } } } }));
  const patch = parentPatchOf(parent, ['spec']);

  it('builds the revision Metacontroller would create', () => {
    expect(newControllerRevision({ parent, patch, parentResource: catsets, generateSelector: false })).toEqual({
      apiVersion: 'metacontroller.k8s.io/v1alpha1',
      kind: 'ControllerRevision',
      metadata: {
        name: controllerRevisionName({ parentResource: catsets, parentUid: 'p-1', patch }),
        namespace: 'ns',
        labels: { app: 'web', tier: 'front', 'metacontroller.k8s.io/apiGroup': 'ctl.enisoc.com', 'metacontroller.k8s.io/resource': 'catsets' },
        ownerReferences: [{ apiVersion: 'ctl.enisoc.com/v1', kind: 'CatSet', name: 'web', uid: 'p-1', controller: true, blockOwnerDeletion: true }],
      },
      parentPatch: patch,
    });
  });

  it.each([
    { generateSelector: true, spec: { template: { metadata: { labels: { app: 'web' } } } }, want: { 'controller-uid': 'p-1' } },
    { generateSelector: false, spec: {}, want: {} },
    { generateSelector: false, spec: { template: { metadata: { labels: null } } }, want: {} },
  ])('labels: generateSelector=$generateSelector, spec=$spec', ({ generateSelector, spec, want }) => {
    const revision = newControllerRevision({ parent: catSet(spec), patch: {}, parentResource: { group: '', resource: 'things' }, generateSelector });
    expect(revision.metadata.labels).toEqual({ ...want, 'metacontroller.k8s.io/apiGroup': '', 'metacontroller.k8s.io/resource': 'things' });
  });

  it.each([
    { why: 'non-string labels', parent: catSet({ template: { metadata: { labels: { app: 1 } } } }) },
    { why: 'labels that are not a map', parent: catSet({ template: { metadata: { labels: 'app' } } }) },
    { why: 'a cluster-scoped parent', parent: catSet({}, { metadata: { name: 'web', uid: 'p-1' } }) },
  ])('fails for $why', ({ parent: bad }) => {
    expect(() => newControllerRevision({ parent: bad, patch: {}, parentResource: catsets, generateSelector: false })).toThrow(RevisionError);
  });
});

describe('revisionSelector', () => {
  it('adds the group and resource labels to the parent selector', () => {
    const selector = deepFreeze({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' as const }] });
    expect(revisionSelector(selector, catsets)).toEqual({
      matchLabels: { app: 'web', 'metacontroller.k8s.io/apiGroup': 'ctl.enisoc.com', 'metacontroller.k8s.io/resource': 'catsets' },
      matchExpressions: [{ key: 'tier', operator: 'Exists' }],
    });
  });
});

describe('revisionSet', () => {
  const v1 = catSet({ image: 'v1' });
  const v2 = catSet({ image: 'v2', replicas: 3 });
  const revisionOf = (parent: KubeObject, name: string): ControllerRevision => ({
    ...newControllerRevision({ parent, patch: parentPatchOf(parent, ['spec']), parentResource: catsets, generateSelector: false }),
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '7' },
    children: [{ apiGroup: '', kind: 'Pod', names: [name] }],
  });
  const input = (parent: KubeObject, revisions: ControllerRevision[]) => ({
    parent, revisions: deepFreeze(revisions), fieldPaths: ['spec'], parentResource: catsets, generateSelector: false,
  });

  it('finds the latest revision by patch and pairs every other one with the parent as of it', () => {
    const set = revisionSet(input(v2, [revisionOf(v1, 'old'), revisionOf(v2, 'new')]));
    expect(set.latest).toMatchObject({ isNew: false, revision: { metadata: { name: 'new' } }, parent: v2 });
    expect(set.historic).toHaveLength(1);
    expect(set.historic[0]?.revision.metadata.name).toBe('old');
    expect(set.historic[0]?.parent).toEqual({ ...v2, spec: { image: 'v1' } });
    expect(set.observed.map((r) => r.metadata.name)).toEqual(['old', 'new']);
  });

  it('prepares a new latest revision when no patch matches', () => {
    const set = revisionSet(input(v2, [revisionOf(v1, 'old')]));
    expect(set.latest.isNew).toBe(true);
    expect(set.latest.revision).toEqual(newControllerRevision({ parent: v2, patch: { spec: v2.spec } as JsonObject, parentResource: catsets, generateSelector: false }));
  });

  it('takes the last of several revisions matching the latest patch and leaves the others out', () => {
    const set = revisionSet(input(v2, [revisionOf(v2, 'a'), revisionOf(v2, 'b')]));
    expect(set.latest.revision.metadata.name).toBe('b');
    expect(set.historic).toEqual([]);
  });

  it('rejects a revision whose parentPatch is not an object', () => {
    const broken = { ...revisionOf(v1, 'bad'), parentPatch: 'x' } as unknown as ControllerRevision;
    expect(() => revisionSet(input(v2, [broken]))).toThrow(RevisionError);
  });
});
