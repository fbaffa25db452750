/**
 * The string sharer changes no value: what it does (one copy of each repeated string) shows only in
 * memory, which `npm run bench:converge` measures; here, that every field reads as before, that it
 * leaves other fields alone, and that its pool stays within its bound.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { stringSharer } from './shared-strings.ts';

const child = (name: string): KubeObject => JSON.parse(JSON.stringify({
  apiVersion: 'v1', kind: 'ConfigMap',
  metadata: {
    name, namespace: 'web', uid: `uid-${name}`, resourceVersion: '7', creationTimestamp: '2026-11-25T20:41:07Z',
    labels: { 'controller-uid': 'uid-parent', tier: 'front' },
    ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Site', name: 'site', uid: 'uid-parent', controller: true, blockOwnerDeletion: true }],
    annotations: { note: 'kept' },
  },
  data: { key: 'value' },
})) as KubeObject;

describe('stringSharer', () => {
  it('returns the object with every value as it was', () => {
    const share = stringSharer();
    for (const name of ['a', 'b', 'c']) {
      const original = child(name);
      const shared = share(child(name));
      expect(shared).toEqual(original);
    }
  });

  it('takes objects without labels, owners or namespace', () => {
    const share = stringSharer();
    const bare: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'web' } };
    expect(share(structuredClone(bare))).toStrictEqual(bare);
  });

  it('keeps working past its pool size', () => {
    const share = stringSharer(4);
    const objects = Array.from({ length: 20 }, (_, i) => child(`c${i}`));
    const copies = objects.map((o) => structuredClone(o));
    expect(objects.map(share)).toEqual(copies);
  });
});
