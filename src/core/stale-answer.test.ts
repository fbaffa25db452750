import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { whyAnswerStale } from './stale-answer.ts';

const parent = (meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'test.loom.dev/v1', kind: 'Paint',
  metadata: { namespace: 'default', name: 'web', uid: 'uid-1', generation: 3, resourceVersion: '10', ...meta },
});

describe('whyAnswerStale', () => {
  it.each([
    { name: 'same object, same version', current: parent(), stopping: false, stale: undefined },
    { name: 'status or metadata written since (resourceVersion moved, generation did not)', current: parent({ resourceVersion: '11', labels: { a: 'b' } }), stopping: false, stale: undefined },
    { name: 'cache behind the synced object', current: parent({ generation: 2, resourceVersion: '9' }), stopping: false, stale: undefined },
    { name: 'controller stopping', current: parent(), stopping: true, stale: 'the controller is stopping' },
    { name: 'object gone from the cache', current: undefined, stopping: false, stale: 'the object was deleted' },
    { name: 'namesake created again', current: parent({ uid: 'uid-2', generation: 1 }), stopping: false, stale: 'the object was deleted and created again' },
    { name: 'deletion started', current: parent({ deletionTimestamp: '2026-11-27T00:00:00Z', generation: 4 }), stopping: false, stale: 'the object is being deleted' },
    { name: 'spec changed', current: parent({ generation: 4, resourceVersion: '12' }), stopping: false, stale: "the object's spec changed (generation 3 → 4)" },
  ])('$name', ({ current, stopping, stale }) => {
    expect(whyAnswerStale({ synced: parent(), current, stopping })).toBe(stale);
  });

  it('a deletion the sync already knew of is no news (a finalize call works on a deleted object)', () => {
    const deleting = parent({ deletionTimestamp: '2026-11-27T00:00:00Z' });
    expect(whyAnswerStale({ synced: deleting, current: deleting, stopping: false })).toBeUndefined();
  });

  it('objects without a generation (built-in kinds such as ConfigMap) go stale only by identity, deletion or stop', () => {
    const { generation: _, ...withoutGeneration } = parent().metadata;
    const cm = { ...parent(), metadata: withoutGeneration };
    expect(whyAnswerStale({ synced: cm, current: { ...cm, metadata: { ...withoutGeneration, resourceVersion: '99' } }, stopping: false })).toBeUndefined();
  });
});
