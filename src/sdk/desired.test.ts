import { describe, expect, it } from 'vitest';
import { desired } from './desired.ts';
import type { KubeObject } from './types.ts';

/** A typed kind, as `loom types` generates one: `kind` a literal, so `desired` checks the fields. */
interface ConfigMap extends KubeObject {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  data?: Record<string, string>;
}

interface Pod extends KubeObject {
  apiVersion: 'v1';
  kind: 'Pod';
  spec?: Record<string, unknown>;
}

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

  // The `@ts-expect-error` lines are the assertions here: `npm run typecheck` fails if one compiles.
  it('checks the fields of a typed kind, named or expected, and keeps untyped calls loose', () => {
    const named = desired<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', data: { a: 'b' } });
    const expected: (ConfigMap | Pod)[] = [desired({ apiVersion: 'v1', kind: 'Pod', name: 'p', spec: {} })];
    // @ts-expect-error a misspelt field of a typed kind
    desired<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', dta: { a: 'b' } });
    // @ts-expect-error a field of the wrong type
    desired<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', data: { a: 1 } });
    // @ts-expect-error another kind's field, where the expected type is a union
    const wrong: (ConfigMap | Pod)[] = [desired({ apiVersion: 'v1', kind: 'Pod', name: 'p', data: {} })];
    const loose: KubeObject = desired({ apiVersion: 'example.com/v1', kind: 'Anything', name: 'y', whatever: 1 });
    expect(named).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } });
    expect(expected[0]?.metadata).toEqual({ name: 'p' });
    expect(wrong[0]?.kind).toBe('Pod');
    expect(loose.whatever).toBe(1);
  });
});
