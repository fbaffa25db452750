import { describe, expect, it } from 'vitest';
import { attachmentsOf, childrenOf, observedChild, observedReadiness, observedRelated, relatedOf } from './observed.ts';
import type { CompositeRequest, DecoratorRequest, KubeObject } from './types.ts';

function obj(kind: string, name: string, namespace?: string): KubeObject {
  return { apiVersion: 'v1', kind, metadata: namespace === undefined ? { name } : { name, namespace } };
}

const namespacedParent = obj('Thing', 'p', 'ns');
const clusterParent = obj('Thing', 'p');
const cmA = obj('ConfigMap', 'a', 'ns');
const cmB = obj('ConfigMap', 'b', 'ns');
const cmOther = obj('ConfigMap', 'a', 'other');
const role = obj('ClusterRole', 'admin');

function composite(parent: KubeObject, children: CompositeRequest['children'], related: CompositeRequest['related'] = {}): CompositeRequest {
  return { parent, children, related, finalizing: false };
}

/** The same observed state, keyed by each hook version for each parent scope (docs/hook-protocol.md, "Object maps and hook versions"). */
const requests = {
  'v1, namespaced parent': composite(namespacedParent, { 'ConfigMap.v1': { b: cmB, a: cmA }, 'ClusterRole.v1': {} }),
  'v2, namespaced parent': composite(namespacedParent, { 'ConfigMap.v1': { 'ns/b': cmB, 'ns/a': cmA }, 'ClusterRole.v1': { admin: role } }),
  'v1, cluster parent': composite(clusterParent, { 'ConfigMap.v1': { 'ns/b': cmB, 'ns/a': cmA, 'other/a': cmOther }, 'ClusterRole.v1': { admin: role } }),
  'v2, cluster parent': composite(clusterParent, { 'ConfigMap.v1': { 'ns/b': cmB, 'ns/a': cmA, 'other/a': cmOther }, 'ClusterRole.v1': { admin: role } }),
};

describe('childrenOf', () => {
  it('lists one type ordered by key, whatever the map order', () => {
    expect(childrenOf(requests['v1, namespaced parent'], 'ConfigMap.v1')).toEqual([cmA, cmB]);
    expect(childrenOf(requests['v2, cluster parent'], 'ConfigMap.v1')).toEqual([cmA, cmB, cmOther]);
  });

  it('is empty for a type that has no entry', () => {
    expect(childrenOf(requests['v2, namespaced parent'], 'Secret.v1')).toEqual([]);
  });
});

describe('observedChild', () => {
  it.each(Object.entries(requests))('finds a child in the parent namespace by name (%s)', (_version, request) => {
    const namespace = request.parent.metadata.namespace === undefined ? 'ns' : undefined;
    expect(observedChild(request, 'ConfigMap.v1', 'a', namespace)).toBe(cmA);
    expect(observedChild(request, 'ConfigMap.v1', 'b', 'ns')).toBe(cmB);
    expect(observedChild(request, 'ConfigMap.v1', 'missing', 'ns')).toBeUndefined();
    expect(observedChild(request, 'Secret.v1', 'a', 'ns')).toBeUndefined();
  });

  it.each(['v2, namespaced parent', 'v1, cluster parent', 'v2, cluster parent'] as const)('finds a cluster-scoped child by name (%s)', (version) => {
    expect(observedChild(requests[version], 'ClusterRole.v1', 'admin')).toBe(role);
  });

  it('tells namespaces apart under a cluster-scoped parent', () => {
    expect(observedChild(requests['v1, cluster parent'], 'ConfigMap.v1', 'a', 'other')).toBe(cmOther);
    expect(observedChild(requests['v1, cluster parent'], 'ConfigMap.v1', 'a')).toBeUndefined();
  });

  it('does not take a bare name for another namespace (v1, namespaced parent)', () => {
    expect(observedChild(requests['v1, namespaced parent'], 'ConfigMap.v1', 'a', 'other')).toBeUndefined();
  });

  it('reads the attachments of a decorator request, relative to its object', () => {
    const request: DecoratorRequest = { object: namespacedParent, attachments: { 'ConfigMap.v1': { a: cmA } }, related: {}, finalizing: false };
    expect(observedChild(request, 'ConfigMap.v1', 'a')).toBe(cmA);
    expect(attachmentsOf(request, 'ConfigMap.v1')).toEqual([cmA]);
  });
});

describe('related objects', () => {
  const request = composite(namespacedParent, {}, { 'ConfigMap.v1': { 'ns/b': cmB, 'other/a': cmOther } });

  it('are listed and found like children', () => {
    expect(relatedOf(request, 'ConfigMap.v1')).toEqual([cmB, cmOther]);
    expect(observedRelated(request, 'ConfigMap.v1', 'b')).toBe(cmB);
    expect(observedRelated(request, 'ConfigMap.v1', 'a', 'other')).toBe(cmOther);
    expect(observedRelated(request, 'ConfigMap.v1', 'a')).toBeUndefined();
  });
});

describe('typed object maps', () => {
  it('give declared types without undefined', () => {
    const request: CompositeRequest<KubeObject, 'ConfigMap.v1'> = { parent: namespacedParent, children: { 'ConfigMap.v1': { a: cmA } }, related: {}, finalizing: false };
    const group: Record<string, KubeObject> = request.children['ConfigMap.v1'];
    expect(Object.keys(group)).toEqual(['a']);
    expect(childrenOf(request, 'ConfigMap.v1')).toEqual([cmA]);
    // @ts-expect-error: a type the request does not declare
    expect(childrenOf(request, 'Secret.v1')).toEqual([]);
  });
});

describe('observedReadiness', () => {
  const current = { status: 'Current' as const, message: 'Resource is current' };
  const pending = { status: 'InProgress' as const, message: 'readyWhen is false' };

  it('finds a child\'s readiness by the same keys as the child, in v1 and v2', () => {
    const v1 = { ...requests['v1, namespaced parent'], readiness: { 'ConfigMap.v1': { a: current, b: pending } } };
    const v2 = { ...requests['v2, namespaced parent'], readiness: { 'ConfigMap.v1': { 'ns/a': current, 'ns/b': pending } } };
    for (const request of [v1, v2]) {
      expect(observedReadiness(request, 'ConfigMap.v1', 'b')).toEqual(pending);
      expect(observedReadiness(request, 'ConfigMap.v1', 'a', 'ns')).toEqual(current);
      expect(observedReadiness(request, 'ConfigMap.v1', 'missing')).toBeUndefined();
    }
  });

  it('is undefined when the request has no readiness (a Metacontroller request)', () => {
    expect(observedReadiness(requests['v1, namespaced parent'], 'ConfigMap.v1', 'a')).toBeUndefined();
  });

  it('reads a decorator\'s attachments too', () => {
    const request: DecoratorRequest = { object: namespacedParent, attachments: { 'ConfigMap.v1': { a: cmA } }, related: {}, finalizing: false, readiness: { 'ConfigMap.v1': { a: pending } } };
    expect(observedReadiness(request, 'ConfigMap.v1', 'a')).toEqual(pending);
  });
});
