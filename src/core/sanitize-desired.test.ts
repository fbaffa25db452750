import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { sanitizeForApply } from './sanitize-desired.ts';

describe('sanitizeForApply', () => {
  it('drops status, server-set metadata and the last-applied annotation, keeping the rest', () => {
    const desired: KubeObject = {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: {
        name: 'a', namespace: 'n', uid: 'u', resourceVersion: '7', generation: 2, creationTimestamp: 't', managedFields: [],
        labels: { x: 'y' }, annotations: { keep: '1', 'metacontroller.k8s.io/last-applied-configuration': '{}' },
      },
      data: { k: 'v' }, status: { phase: 'x' },
    };
    const copy = structuredClone(desired);
    expect(sanitizeForApply(desired)).toEqual({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n', labels: { x: 'y' }, annotations: { keep: '1' } }, data: { k: 'v' },
    });
    expect(desired).toEqual(copy);
  });
});
