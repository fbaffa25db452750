import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { attachmentAnnotations, decorates, isAttachmentOf, mergeMetadataMap, planTargetWrites } from './decorator.ts';

const target = (meta: Partial<KubeObject['metadata']> = {}, status?: KubeObject['status']): KubeObject => ({
  apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 't', namespace: 'ns', uid: 'u1', ...meta }, ...(status === undefined ? {} : { status }),
});
const options = { finalizer: 'metacontroller.io/decoratorcontroller-d', removeFinalizer: false, statusSubresource: true };

describe('decorates', () => {
  it.each([
    ['no selectors', {}, {}, true],
    ['label selector matches', { labelSelector: { matchLabels: { a: '1' } } }, { labels: { a: '1' } }, true],
    ['label selector misses', { labelSelector: { matchLabels: { a: '1' } } }, { labels: { a: '2' } }, false],
    ['annotation selector matches', { annotationSelector: { matchAnnotations: { n: 'y' } } }, { annotations: { n: 'y' } }, true],
    ['annotation selector misses', { annotationSelector: { matchAnnotations: { n: 'y' } } }, { labels: { n: 'y' } }, false],
    ['annotation expressions', { annotationSelector: { matchExpressions: [{ key: 'n', operator: 'Exists' as const }] } }, { annotations: { n: '' } }, true],
    ['both must match', { labelSelector: { matchLabels: { a: '1' } }, annotationSelector: { matchAnnotations: { n: 'y' } } }, { labels: { a: '1' } }, false],
  ])('%s', (_, rule, meta, expected) => {
    expect(decorates(rule, target(meta))).toBe(expected);
  });
});

describe('isAttachmentOf', () => {
  const owned = (uid: string, controller: boolean, annotations: Record<string, string>): KubeObject => ({
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: 'a', annotations, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 't', uid, controller }] },
  });
  it('needs the target as controller and the decorator\'s annotation', () => {
    expect(isAttachmentOf(owned('u1', true, attachmentAnnotations('d')), target(), 'd')).toBe(true);
    expect(isAttachmentOf(owned('u1', true, attachmentAnnotations('other')), target(), 'd')).toBe(false);
    expect(isAttachmentOf(owned('u2', true, attachmentAnnotations('d')), target(), 'd')).toBe(false);
    expect(isAttachmentOf(owned('u1', false, attachmentAnnotations('d')), target(), 'd')).toBe(false);
  });
});

describe('mergeMetadataMap', () => {
  it('sets, overwrites, deletes with null and keeps the rest', () => {
    expect(mergeMetadataMap({ keep: '1', change: 'a', drop: 'x' }, { change: 'b', drop: null, add: 'n', absent: null })).toEqual({ keep: '1', change: 'b', add: 'n' });
  });
});

describe('planTargetWrites', () => {
  it('writes nothing when the answer changes nothing', () => {
    const writes = planTargetWrites(target({ labels: { a: '1' } }, { s: 1 }), { labels: { a: '1' }, annotations: {}, status: null }, options);
    expect(writes).toMatchObject({ writeStatus: false, writeObject: false });
  });

  it('updates the object for labels and annotations, and leaves the status alone on null', () => {
    const writes = planTargetWrites(target({ labels: { a: '1' } }, { s: 1 }), { labels: { b: '2' }, annotations: { n: 'v' }, status: null }, options);
    expect(writes).toMatchObject({ writeStatus: false, writeObject: true });
    expect(writes.target.metadata).toMatchObject({ labels: { a: '1', b: '2' }, annotations: { n: 'v' } });
    expect(writes.target.status).toEqual({ s: 1 });
  });

  it('replaces the status wholesale through the subresource, without observedGeneration', () => {
    const writes = planTargetWrites(target({}, { s: 1, old: true }), { labels: {}, annotations: {}, status: { s: 2 } }, options);
    expect(writes).toMatchObject({ writeStatus: true, writeObject: false });
    expect(writes.target.status).toEqual({ s: 2 });
  });

  it('writes a changed status with the object when the type has no status subresource', () => {
    const writes = planTargetWrites(target({}, { s: 1 }), { labels: {}, annotations: {}, status: { s: 2 } }, { ...options, statusSubresource: false });
    expect(writes).toMatchObject({ writeStatus: false, writeObject: true });
  });

  it('removes only its own finalizer when asked', () => {
    const writes = planTargetWrites(target({ finalizers: ['other', options.finalizer] }), { labels: {}, annotations: {}, status: null }, { ...options, removeFinalizer: true });
    expect(writes.writeObject).toBe(true);
    expect(writes.target.metadata.finalizers).toEqual(['other']);
  });
});
