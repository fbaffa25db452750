import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Json, KubeObject } from '../api/object.ts';
import {
  LAST_APPLIED_ANNOTATION,
  dynamicApplyMerge,
  jsonEqual,
  lastAppliedOf,
  threeWayMerge,
  withLastApplied,
} from './three-way-merge.ts';

interface MergeFixture {
  name: string;
  observed: Json;
  lastApplied: Json;
  desired: Json;
  expected: Json;
}

const FIXTURES = join(import.meta.dirname, 'fixtures', 'merge');
const fixtures = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file): [string, MergeFixture] => [file, JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as MergeFixture]);

/** Freezes a JSON tree so any write to it throws (modules run in strict mode). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe('threeWayMerge fixtures', () => {
  it('has a fixture for every rule', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
  });

  it.each(fixtures)('%s', (_file, fixture) => {
    const { observed, lastApplied, desired } = deepFreeze(fixture);
    expect(threeWayMerge(observed, lastApplied, desired)).toStrictEqual(fixture.expected);
  });
});

describe('threeWayMerge', () => {
  it('returns a value that shares nothing with its inputs', () => {
    const desired = { spec: { template: { labels: { a: 'b' } } } };
    const observed = { keep: { deep: [1] } };
    const merged = threeWayMerge(observed, {}, desired) as { spec: { template: { labels: Record<string, string> } }; keep: { deep: number[] } };
    merged.spec.template.labels.a = 'changed';
    merged.keep.deep.push(2);
    expect(desired.spec.template.labels.a).toBe('b');
    expect(observed.keep.deep).toEqual([1]);
  });

  it('treats __proto__ and constructor as plain keys', () => {
    const observed = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as Json;
    const merged = threeWayMerge(observed, {}, { constructor: 'c' });
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(jsonEqual(merged, JSON.parse('{"__proto__":{"polluted":true},"x":1,"constructor":"c"}') as Json)).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('jsonEqual', () => {
  it.each<[string, Json, Json, boolean]>([
    ['same scalars', 1, 1, true],
    ['number vs string', 1, '1', false],
    ['key order ignored', { a: 1, b: 2 }, { b: 2, a: 1 }, true],
    ['list order matters', [1, 2], [2, 1], false],
    ['missing key vs null', { a: null }, {}, false],
    ['extra key', { a: 1 }, { a: 1, b: 1 }, false],
    ['null vs object', null, {}, false],
    ['list vs object', [], {}, false],
    ['nested difference', { a: [{ b: 1 }] }, { a: [{ b: 2 }] }, false],
    ['nested equal', { a: [{ b: 1 }] }, { a: [{ b: 1 }] }, true],
  ])('%s', (_name, a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
    expect(jsonEqual(b, a)).toBe(expected);
  });
});

type OwnerReferences = NonNullable<KubeObject['metadata']['ownerReferences']>;

function configMap(extra: Partial<KubeObject> & { annotations?: Record<string, string>; ownerReferences?: OwnerReferences } = {}): KubeObject {
  const { annotations, ownerReferences, ...rest } = extra;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'ns', ...(annotations ? { annotations } : {}), ...(ownerReferences ? { ownerReferences } : {}) },
    ...rest,
  };
}

/** The controller reference loom adds to every child it creates. */
const CONTROLLER_REF = { apiVersion: 'example.com/v1', kind: 'Parent', name: 'p', uid: 'u-parent', controller: true, blockOwnerDeletion: true };

describe('lastAppliedOf', () => {
  it.each<[string, Record<string, string> | undefined, Json]>([
    ['no annotations', undefined, {}],
    ['annotation missing', { other: 'x' }, {}],
    ['not JSON', { [LAST_APPLIED_ANNOTATION]: '{oops' }, {}],
    ['JSON but not an object', { [LAST_APPLIED_ANNOTATION]: '[1,2]' }, {}],
    ['JSON null', { [LAST_APPLIED_ANNOTATION]: 'null' }, {}],
    ['an object', { [LAST_APPLIED_ANNOTATION]: '{"data":{"a":"1"}}' }, { data: { a: '1' } }],
  ])('%s', (_name, annotations, expected) => {
    expect(lastAppliedOf(configMap(annotations ? { annotations } : {}))).toStrictEqual(expected);
  });
});

describe('withLastApplied', () => {
  it('records desired as Go would write it: sorted keys, HTML characters escaped', () => {
    const desired = deepFreeze(configMap({ data: { z: 'a<b>&c', a: '1' } }));
    const created = withLastApplied(desired);
    expect(created.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBe(
      '{"apiVersion":"v1","data":{"a":"1","z":"a\\u003cb\\u003e\\u0026c"},"kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"}}',
    );
    expect(created.data).toEqual(desired.data);
  });

  it('records desired without the controller reference, as Metacontroller records it before adding that', () => {
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: 'u-other' };
    const desired = configMap({ ownerReferences: [other, CONTROLLER_REF] });
    const created = withLastApplied(desired);
    expect(created.metadata.ownerReferences).toEqual([other, CONTROLLER_REF]);
    const recorded = JSON.parse(created.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? '') as KubeObject;
    expect(recorded.metadata.ownerReferences).toEqual([other]);
    const onlyOurs = JSON.parse(withLastApplied(configMap({ ownerReferences: [CONTROLLER_REF] })).metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? '') as KubeObject;
    expect(Object.hasOwn(onlyOurs.metadata, 'ownerReferences')).toBe(false);
  });

  it('leaves an incoming last-applied annotation out of the record', () => {
    const desired = configMap({ annotations: { [LAST_APPLIED_ANNOTATION]: '{"stale":true}', keep: 'k' } });
    const created = withLastApplied(desired);
    const recorded = JSON.parse(created.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? '') as KubeObject;
    expect(recorded.metadata.annotations).toEqual({ keep: 'k' });
    expect(created.metadata.annotations?.keep).toBe('k');
    expect(desired.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBe('{"stale":true}');
  });
});

/** A ConfigMap as the API server returns it after loom created `desired`. */
function stored(desired: KubeObject): KubeObject {
  const created = withLastApplied(desired);
  return {
    ...created,
    metadata: {
      ...created.metadata,
      uid: 'u-1',
      resourceVersion: '42',
      creationTimestamp: '2026-01-01T00:00:00Z',
      managedFields: [{ manager: 'loom' }],
    },
  };
}

describe('dynamicApplyMerge', () => {
  const desired = configMap({ data: { a: '1', b: '2' } });

  it('finds nothing to do for the object it created', () => {
    const observed = deepFreeze(stored(desired));
    const result = dynamicApplyMerge(observed, desired);
    expect(result.changed).toBe(false);
    expect(result.object).toStrictEqual(observed);
  });

  it('merges a change, keeps others fields and the observed resourceVersion', () => {
    const observed = deepFreeze({ ...stored(desired), immutable: true });
    const result = dynamicApplyMerge(observed, configMap({ data: { a: '10' } }));
    expect(result.changed).toBe(true);
    expect(result.object.data).toEqual({ a: '10' });
    expect(result.object.immutable).toBe(true);
    expect(result.object.metadata.resourceVersion).toBe('42');
    expect(JSON.parse(result.object.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? '')).toEqual(configMap({ data: { a: '10' } }));
  });

  it('reverts system metadata fields and status to observed', () => {
    const observed = deepFreeze({ ...stored(desired), status: { phase: 'Ready' } });
    const meddling = configMap({ data: { a: '1', b: '2' }, status: { phase: 'Hacked' } });
    Object.assign(meddling.metadata, {
      selfLink: '/x',
      uid: 'other',
      resourceVersion: '1',
      generation: 7,
      creationTimestamp: '1999-01-01T00:00:00Z',
      deletionTimestamp: '1999-01-01T00:00:00Z',
      deletionGracePeriodSeconds: 5,
      managedFields: [],
    });
    const result = dynamicApplyMerge(observed, meddling);
    const { metadata } = result.object;
    expect(metadata).toMatchObject({ uid: 'u-1', resourceVersion: '42', creationTimestamp: '2026-01-01T00:00:00Z', managedFields: [{ manager: 'loom' }] });
    for (const absent of ['selfLink', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds']) {
      expect(Object.hasOwn(metadata, absent)).toBe(false);
    }
    expect(result.object.status).toEqual({ phase: 'Ready' });
  });

  it('drops a desired status when observed has none', () => {
    const result = dynamicApplyMerge(stored(desired), { ...desired, status: { x: 1 } });
    expect(Object.hasOwn(result.object, 'status')).toBe(false);
  });

  it('deletes what the annotation says loom applied and desired no longer has', () => {
    const observed = { ...stored(desired), data: { a: '1', b: '2', c: 'theirs' } };
    const result = dynamicApplyMerge(observed, configMap({ data: { a: '1' } }));
    expect(result.object.data).toEqual({ a: '1', c: 'theirs' });
  });

  it('deletes nothing when the annotation is unreadable', () => {
    const observed = configMap({ annotations: { [LAST_APPLIED_ANNOTATION]: 'not json' }, data: { a: '1', b: '2' } });
    const result = dynamicApplyMerge(observed, configMap({ data: { a: '1' } }));
    expect(result.object.data).toEqual({ a: '1', b: '2' });
    expect(result.changed).toBe(true);
  });

  it('keeps the controller reference through a rollback to Metacontroller, whose desired state has none', () => {
    const ours = configMap({ data: { a: '1' }, ownerReferences: [CONTROLLER_REF] });
    const observed = dynamicApplyMerge(stored(configMap({ data: { a: '0' }, ownerReferences: [CONTROLLER_REF] })), ours).object;
    // Metacontroller's next update: its 3-way merge with the hook's answer, to which it adds no owner reference.
    const rolledBack = threeWayMerge(observed as unknown as Json, lastAppliedOf(observed), configMap({ data: { a: '2' } }) as unknown as Json) as unknown as KubeObject;
    expect(rolledBack.metadata.ownerReferences).toEqual([CONTROLLER_REF]);
    expect(rolledBack.data).toEqual({ a: '2' });
  });

  it('keeps the controller reference of a child whose annotation an earlier loom wrote with it', () => {
    const desiredWithRef = configMap({ data: { a: '1' }, ownerReferences: [CONTROLLER_REF] });
    const created = stored(desiredWithRef);
    const annotations = { [LAST_APPLIED_ANNOTATION]: JSON.stringify(desiredWithRef) };
    const result = dynamicApplyMerge({ ...created, metadata: { ...created.metadata, annotations } }, desiredWithRef);
    expect(result.object.metadata.ownerReferences).toEqual([CONTROLLER_REF]);
    expect((JSON.parse(result.object.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? '') as KubeObject).metadata.ownerReferences).toBeUndefined();
  });

  it('sees no change in a child whose annotation Metacontroller wrote', () => {
    const observed: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'cm',
        namespace: 'ns',
        uid: 'u-1',
        annotations: {
          [LAST_APPLIED_ANNOTATION]:
            '{"apiVersion":"v1","data":{"html":"\\u003cb\\u003e\\u0026"},"kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"}}',
        },
      },
      data: { html: '<b>&' },
    };
    const want = { kind: 'ConfigMap', apiVersion: 'v1', data: { html: '<b>&' }, metadata: { namespace: 'ns', name: 'cm' } };
    expect(dynamicApplyMerge(observed, want).changed).toBe(false);
  });
});
