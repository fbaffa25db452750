import { describe, expect, it } from 'vitest';
import type { Hook, KubeObject } from '../api/index.ts';
import type { HookRunner } from '../hooks/index.ts';
import { RenderError } from './render-error.ts';
import { relatedObjects, type RelatedInput } from './render-related.ts';
import { typeCatalog } from './render-types.ts';

function obj(apiVersion: string, kind: string, name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion, kind, metadata: { name, ...extra } };
}

const objects = [
  obj('v1', 'Namespace', 'team-a', { labels: { team: 'a' } }),
  obj('v1', 'Namespace', 'team-b', { labels: { team: 'b' } }),
  obj('v1', 'Secret', 'key', { namespace: 'team-a' }),
  obj('v1', 'Secret', 'key', { namespace: 'team-b' }),
  obj('v1', 'Secret', 'key', { namespace: 'unknown' }),
  obj('example.com/v1', 'Gadget', 'g', { namespace: 'team-a' }),
];

function input(answer: unknown, version: Hook['version'] = 'v2'): RelatedInput {
  const runner: HookRunner = { call: () => Promise.resolve(answer) };
  return {
    controller: obj('metacontroller.k8s.io/v1alpha1', 'CompositeController', 'c'),
    parent: obj('example.com/v1', 'Web', 'w', { namespace: 'team-a' }),
    hook: { version, jsonata: { expression: '{}', timeoutMs: 1_000 } },
    runner, source: () => Promise.resolve(objects), catalog: typeCatalog({ crds: [], examples: objects }), signal: new AbortController().signal,
  };
}

describe('relatedObjects', () => {
  it('picks by namespace selector, reading labels from the Namespace objects given', async () => {
    const result = await relatedObjects(input({ relatedResources: [{ apiVersion: 'v1', resource: 'secrets', namespaceSelector: { matchLabels: { team: 'b' } } }] }));
    expect(result.picked).toEqual(['Secret team-b/key']);
    expect(result.typed.declaredTypes).toEqual([{ apiVersion: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true }]);
  });

  it('confines a v1 hook of a namespaced parent to its namespace and lists each object once', async () => {
    const rules = [{ apiVersion: 'v1', resource: 'secrets' }, { apiVersion: 'v1', resource: 'secrets', names: ['key'] }, { apiVersion: 'example.com/v1', resource: 'gadgets' }];
    const result = await relatedObjects(input({ relatedResources: rules }, 'v1'));
    expect(result.picked).toEqual(['Secret team-a/key', 'Gadget team-a/g']);
  });

  it('notes a rule whose kind nothing tells, and goes on', async () => {
    const result = await relatedObjects(input({ relatedResources: [{ apiVersion: 'example.com/v1', resource: 'widgets' }] }));
    expect(result.picked).toEqual([]);
    expect(result.notes).toEqual(['customize hook: the kind of widgets.example.com/v1 is unknown (no CRD with the controller, no such object in --related); the sync hook sees none']);
  });

  it('reports an answer that is not a customize response', async () => {
    await expect(relatedObjects(input({ relatedResources: [{ resource: 'secrets' }] }))).rejects.toThrow(
      new RenderError('customize hook: invalid response: relatedResources[0].apiVersion: expected a non-empty string'),
    );
  });
});

describe('relatedObjects: the source', () => {
  it('is asked for the types the rules name, and for Namespaces only when a rule selects namespaces', async () => {
    const asked: string[][] = [];
    const source = (types: readonly { kind: string }[]) => {
      asked.push(types.map((t) => t.kind));
      return Promise.resolve(objects);
    };
    await relatedObjects({ ...input({ relatedResources: [{ apiVersion: 'v1', resource: 'secrets', labelSelector: {} }] }), source });
    await relatedObjects({ ...input({ relatedResources: [{ apiVersion: 'v1', resource: 'secrets', namespaceSelector: { matchLabels: { team: 'b' } } }] }), source });
    expect(asked).toEqual([['Secret'], ['Secret', 'Namespace']]);
  });
});
