import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { createObjectStore } from './object-store.ts';

function cm(namespace: string | undefined, name: string, owner?: string): KubeObject {
  const ownerReferences = owner ? [{ apiVersion: 'v1', kind: 'X', name: 'p', uid: owner, controller: true }] : undefined;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(namespace ? { namespace } : {}), ...(ownerReferences ? { ownerReferences } : {}) } };
}
const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name).sort();

describe('object store', () => {
  it('indexes by key, namespace, controller UID and orphans', () => {
    const store = createObjectStore();
    store.upsert(cm('a', 'one', 'uid-1'));
    store.upsert(cm('a', 'two'));
    store.upsert(cm('b', 'three', 'uid-1'));
    store.upsert(cm(undefined, 'global'));
    expect(store.size).toBe(4);
    expect(store.get('a/one')?.metadata.name).toBe('one');
    expect(store.get('global')?.metadata.name).toBe('global');
    expect(names(store.byNamespace('a'))).toEqual(['one', 'two']);
    expect(names(store.byControllerUid('uid-1'))).toEqual(['one', 'three']);
    expect(names(store.orphans('a'))).toEqual(['two']);
    expect(names(store.orphans())).toEqual(['global', 'two']);
  });

  it('moves an object between indexes when it is adopted or released', () => {
    const store = createObjectStore();
    store.upsert(cm('a', 'child'));
    expect(store.upsert(cm('a', 'child', 'uid-9'))?.metadata.ownerReferences).toBeUndefined();
    expect(names(store.orphans('a'))).toEqual([]);
    expect(names(store.byControllerUid('uid-9'))).toEqual(['child']);
    store.upsert(cm('a', 'child'));
    expect(names(store.byControllerUid('uid-9'))).toEqual([]);
    expect(names(store.orphans('a'))).toEqual(['child']);
  });

  it('keeps the indexes right for an owner with many children, through updates and removals', () => {
    const store = createObjectStore();
    const children = Array.from({ length: 50 }, (_, i) => `c${String(i).padStart(2, '0')}`);
    for (const name of children) store.upsert(cm('a', name, 'uid-big'));
    for (const name of children) store.upsert(cm('a', name, 'uid-big'));
    expect(names(store.byControllerUid('uid-big'))).toEqual(children);
    for (const name of children.slice(1)) store.remove(`a/${name}`);
    expect(names(store.byControllerUid('uid-big'))).toEqual(['c00']);
    expect(names(store.byNamespace('a'))).toEqual(['c00']);
    store.remove('a/c00');
    expect(store.byControllerUid('uid-big')).toEqual([]);
    expect(store.byNamespace('a')).toEqual([]);
  });

  it('forgets removed objects everywhere', () => {
    const store = createObjectStore();
    store.upsert(cm('a', 'one', 'uid-1'));
    expect(store.remove('a/one')?.metadata.name).toBe('one');
    expect(store.remove('a/one')).toBeUndefined();
    expect([store.size, store.byNamespace('a').length, store.byControllerUid('uid-1').length]).toEqual([0, 0, 0]);
  });
});
