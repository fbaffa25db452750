import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { isSpecOrMetaChange } from './spec-or-meta-change.ts';

const base: KubeObject = {
  apiVersion: 'example.com/v1', kind: 'Widget',
  metadata: { name: 'w', generation: 1, resourceVersion: '1', labels: { a: '1', b: '2' }, annotations: { n: 'x' }, finalizers: ['f'] },
  status: { ready: false },
};
const changed = (metadata: Partial<KubeObject['metadata']>, status: KubeObject['status'] = base.status): KubeObject =>
  ({ ...base, metadata: { ...base.metadata, resourceVersion: '2', ...metadata }, status });

describe('isSpecOrMetaChange', () => {
  it.each([
    ['a new generation', changed({ generation: 2 }), true],
    ['a label change', changed({ labels: { a: '1', b: '3' } }), true],
    ['an annotation change', changed({ annotations: {} }), true],
    ['a finalizer change', changed({ finalizers: [] }), true],
    ['a deletion', changed({ deletionTimestamp: '2026-11-22T00:00:00Z' }), true],
    ['a status-only write', changed({}, { ready: true }), false],
    ['the same labels in another order', changed({ labels: { b: '2', a: '1' } }), false],
  ])('%s', (_, current, expected) => {
    expect(isSpecOrMetaChange(base, current)).toBe(expected);
  });
});
