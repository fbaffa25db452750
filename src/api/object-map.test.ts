import { describe, expect, it } from 'vitest';
import type { HookVersion } from './controller-spec.ts';
import type { KubeObject } from './object.ts';
import { buildObjectMap, objectMapKey, typeKey } from './object-map.ts';

function obj(kind: string, apiVersion: string, name: string, namespace?: string): KubeObject {
  return { apiVersion, kind, metadata: namespace === undefined ? { name } : { name, namespace } };
}

const podHere = obj('Pod', 'v1', 'web-0', 'team-a');
const podThere = obj('Pod', 'v1', 'web-0', 'team-b');
const node = obj('Node', 'v1', 'node-1');
const sts = obj('StatefulSet', 'apps/v1', 'web', 'team-a');
const emptyNamespace = obj('Pod', 'v1', 'odd', '');

describe('typeKey', () => {
  it.each([
    ['Pod', 'v1', 'Pod.v1'],
    ['StatefulSet', 'apps/v1', 'StatefulSet.apps/v1'],
    ['CatSet', 'ctl.enisoc.com/v1', 'CatSet.ctl.enisoc.com/v1'],
  ])('%s %s → %s', (kind, apiVersion, key) => {
    expect(typeKey(kind, apiVersion)).toBe(key);
  });
});

describe('objectMapKey', () => {
  it.each<[string, KubeObject, [HookVersion, string | undefined], string | undefined]>([
    ['v1, namespaced parent, same namespace: name', podHere, ['v1', 'team-a'], 'web-0'],
    ['v1, namespaced parent, other namespace: left out', podThere, ['v1', 'team-a'], undefined],
    ['v1, namespaced parent, cluster-scoped object: left out', node, ['v1', 'team-a'], undefined],
    ['v1, cluster parent, namespaced object: namespace/name', podHere, ['v1', undefined], 'team-a/web-0'],
    ['v1, cluster parent (empty namespace), namespaced object', podThere, ['v1', ''], 'team-b/web-0'],
    ['v1, cluster parent, cluster-scoped object: name', node, ['v1', undefined], 'node-1'],
    ['v2, namespaced parent, same namespace: namespace/name', podHere, ['v2', 'team-a'], 'team-a/web-0'],
    ['v2, namespaced parent, other namespace kept', podThere, ['v2', 'team-a'], 'team-b/web-0'],
    ['v2, namespaced parent, cluster-scoped object: name', node, ['v2', 'team-a'], 'node-1'],
    ['v2, cluster parent, namespaced object', podHere, ['v2', undefined], 'team-a/web-0'],
    ['v2, cluster parent, cluster-scoped object', node, ['v2', undefined], 'node-1'],
    ['empty namespace counts as cluster-scoped (v2)', emptyNamespace, ['v2', 'team-a'], 'odd'],
  ])('%s', (_name, object, [version, parentNamespace], expected) => {
    expect(objectMapKey(object, version, parentNamespace)).toBe(expected);
  });
});

describe('buildObjectMap', () => {
  const declaredTypes = [
    { apiVersion: 'v1', kind: 'Pod' },
    { apiVersion: 'apps/v1', kind: 'StatefulSet' },
    { apiVersion: 'v1', kind: 'ConfigMap' },
  ];

  it('v1 with a namespaced parent keys by name and drops other namespaces and cluster-scoped objects', () => {
    const map = buildObjectMap({ objects: [podHere, podThere, node, sts], declaredTypes, version: 'v1', parentNamespace: 'team-a' });
    expect(map).toEqual({
      'Pod.v1': { 'web-0': podHere },
      'StatefulSet.apps/v1': { web: sts },
      'ConfigMap.v1': {},
    });
  });

  it('v1 with a cluster-scoped parent keys namespaced objects by namespace/name', () => {
    const map = buildObjectMap({ objects: [podHere, podThere, node], declaredTypes, version: 'v1' });
    expect(map).toEqual({
      'Pod.v1': { 'team-a/web-0': podHere, 'team-b/web-0': podThere },
      'StatefulSet.apps/v1': {},
      'ConfigMap.v1': {},
      'Node.v1': { 'node-1': node },
    });
  });

  it('v2 keys uniformly, whatever the parent scope', () => {
    for (const parentNamespace of ['team-a', undefined]) {
      const map = buildObjectMap({ objects: [podHere, podThere, node], declaredTypes, version: 'v2', parentNamespace });
      expect(map).toEqual({
        'Pod.v1': { 'team-a/web-0': podHere, 'team-b/web-0': podThere },
        'StatefulSet.apps/v1': {},
        'ConfigMap.v1': {},
        'Node.v1': { 'node-1': node },
      });
    }
  });

  it('has every declared type even without objects', () => {
    const map = buildObjectMap({ objects: [], declaredTypes, version: 'v1', parentNamespace: 'team-a' });
    expect(Object.keys(map)).toEqual(['Pod.v1', 'StatefulSet.apps/v1', 'ConfigMap.v1']);
    expect(Object.values(map).every((group) => Object.keys(group).length === 0)).toBe(true);
  });

  it('passes objects through unchanged (same references, status and annotations kept)', () => {
    const cached: KubeObject = {
      ...podHere,
      metadata: { ...podHere.metadata, annotations: { 'metacontroller.k8s.io/last-applied-configuration': '{}' } },
      status: { phase: 'Running' },
    };
    const map = buildObjectMap({ objects: [cached], declaredTypes, version: 'v2' });
    expect(map['Pod.v1']?.['team-a/web-0']).toBe(cached);
  });

  it('keeps versions apart: the same kind in two versions is two entries', () => {
    const beta = obj('CronJob', 'batch/v1beta1', 'nightly', 'team-a');
    const ga = obj('CronJob', 'batch/v1', 'nightly', 'team-a');
    const map = buildObjectMap({ objects: [beta, ga], declaredTypes: [], version: 'v1', parentNamespace: 'team-a' });
    expect(map).toEqual({ 'CronJob.batch/v1beta1': { nightly: beta }, 'CronJob.batch/v1': { nightly: ga } });
  });
});
