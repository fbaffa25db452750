import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { isReleasedFrom, policyReleasedChild, RELEASED_FROM_ANNOTATION } from './policy-release.ts';

const cm = (annotations: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', annotations } });

describe('policyReleasedChild', () => {
  const ref = (uid: string, controller: boolean) => ({ apiVersion: 'x/v1', kind: 'App', name: uid, uid, controller });

  it('drops the parent\'s references, keeps the others, and marks the child released by the parent', () => {
    const owned: KubeObject = { ...cm({ keep: 'me' }), metadata: { ...cm({ keep: 'me' }).metadata, ownerReferences: [ref('p', true), ref('q', false)] } };
    const released = policyReleasedChild(owned, 'p');
    expect(released?.metadata.ownerReferences).toEqual([ref('q', false)]);
    expect(released?.metadata.annotations).toEqual({ keep: 'me', [RELEASED_FROM_ANNOTATION]: 'p' });
    expect(owned.metadata.ownerReferences).toHaveLength(2);
    expect(isReleasedFrom(released!, 'p')).toBe(true);
    expect(isReleasedFrom(released!, 'q')).toBe(false);
    expect(isReleasedFrom(released!, undefined)).toBe(false);
  });

  it('has nothing to write for a child the parent does not own', () => {
    expect(policyReleasedChild(cm(), 'p')).toBeUndefined();
  });
});
