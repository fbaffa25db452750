import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { planPoliciesFor, type UpdateMethod } from '../core/index.ts';
import { answerOf, renderPlan } from './render-plan.ts';

function configMap(name: string, data: Record<string, string>, metadata: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ...metadata }, data };
}

const method = (m: UpdateMethod) => () => m;

describe('renderPlan', () => {
  it('finds a child unchanged under server-side apply when only server fields and unowned fields differ', () => {
    const observed = configMap('a', { x: '1', other: 'kept' }, { uid: 'u', resourceVersion: '7', creationTimestamp: '2025-01-01T00:00:00Z' });
    expect(renderPlan({ desired: [configMap('a', { x: '1' })], observed: [observed], methodFor: method('InPlace'), applyStrategy: 'server-side-apply' }))
      .toEqual([{ child: 'ConfigMap ns/a', action: 'unchanged' }]);
  });

  it('names the configured method, rolling ones included', () => {
    const plan = renderPlan({ desired: [configMap('a', { x: '2' })], observed: [configMap('a', { x: '1' })], methodFor: method('RollingInPlace'), applyStrategy: 'server-side-apply' });
    expect(plan).toEqual([{ child: 'ConfigMap ns/a', action: 'update (RollingInPlace)', diff: ['data.x: "1" → "2"'] }]);
  });

  it('leaves a terminating child alone without a diff', () => {
    const observed = configMap('a', { x: '1' }, { deletionTimestamp: '2025-01-01T00:00:00Z' });
    expect(renderPlan({ desired: [configMap('a', { x: '2' })], observed: [observed], methodFor: method('Recreate'), applyStrategy: 'dynamic-apply' }))
      .toEqual([{ child: 'ConfigMap ns/a', action: 'left alone (terminating)' }]);
  });

  it('puts deletions first, sorted, then the desired children in order', () => {
    const plan = renderPlan({
      desired: [configMap('z', {}), configMap('m', {})], observed: [configMap('c', {}), configMap('b', {})], methodFor: method('OnDelete'), applyStrategy: 'server-side-apply',
    });
    expect(plan.map((e) => `${e.child}: ${e.action}`)).toEqual(['ConfigMap ns/b: delete', 'ConfigMap ns/c: delete', 'ConfigMap ns/z: create', 'ConfigMap ns/m: create']);
  });

  it('shows what the lifecycle policies make of children that drop out: released, left alone, deleted', () => {
    const parent: KubeObject = { apiVersion: 'x/v1', kind: 'App', metadata: { name: 'app', namespace: 'ns', uid: 'uid-app' } };
    const ownerReferences = [{ apiVersion: 'x/v1', kind: 'App', name: 'app', uid: 'uid-app', controller: true }];
    const observed = [
      configMap('a', {}, { ownerReferences, annotations: { 'loom.dev/deletion-policy': 'Orphan' } }),
      configMap('b', {}, { ownerReferences, annotations: { 'loom.dev/deletion-policy': 'Retain' } }),
      configMap('c', {}, { ownerReferences }),
    ];
    const plan = renderPlan({ desired: [], observed, methodFor: method('InPlace'), applyStrategy: 'server-side-apply', policies: planPoliciesFor(() => undefined, parent) });
    expect(plan.map((e) => `${e.child}: ${e.action}`)).toEqual(['ConfigMap ns/a: release', 'ConfigMap ns/b: left alone (retain)', 'ConfigMap ns/c: delete']);
  });
});

describe('answerOf', () => {
  const observed = configMap('a', { x: '1' }, { uid: 'u', resourceVersion: '7' });

  it('is what the write makes of the observed child, without the version the write replaces', () => {
    expect(answerOf(configMap('a', { x: '2' }), observed, undefined, 'server-side-apply')).toEqual(configMap('a', { x: '2' }, { uid: 'u' }));
  });

  it('is the dry run\'s answer when there is one, and the desired object for a create', () => {
    const stored = configMap('a', { x: '3' }, { uid: 'u', resourceVersion: '7' });
    expect(answerOf(configMap('a', { x: '2' }), observed, { result: stored }, 'server-side-apply')).toEqual(configMap('a', { x: '3' }, { uid: 'u' }));
    expect(answerOf(configMap('b', {}), undefined, { refused: 'no' }, 'dynamic-apply')).toEqual(configMap('b', {}));
  });
});
