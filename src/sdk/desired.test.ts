import { describe, expect, it } from 'vitest';
import { desired } from './desired.ts';

describe('desired', () => {
  it('puts the identifying fields in metadata and keeps the rest', () => {
    expect(desired({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', data: { a: 'b' } })).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x' },
      data: { a: 'b' },
    });
  });

  it('sets namespace, labels and annotations when given, and merges other metadata', () => {
    const child = desired({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      namespace: 'prod',
      labels: { app: 'web' },
      annotations: { note: 'n' },
      metadata: { name: 'ignored', finalizers: ['example.com/cleanup'] },
      spec: { replicas: 2 },
    });
    expect(child).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'prod', labels: { app: 'web' }, annotations: { note: 'n' }, finalizers: ['example.com/cleanup'] },
      spec: { replicas: 2 },
    });
  });

  it('leaves out metadata fields given as undefined', () => {
    const namespace: string | undefined = undefined;
    const child = desired({ apiVersion: 'v1', kind: 'Secret', name: 's', namespace, labels: undefined });
    expect(child.metadata).toEqual({ name: 's' });
    expect(Object.keys(child.metadata)).toEqual(['name']);
  });
});
