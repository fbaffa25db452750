import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import type { ObjectWriter } from '../kube/index.ts';
import { recordingWriter } from './written-objects.ts';

const cm = (name: string, rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv } });

/** A writer whose every write answers with the object it was given, resourceVersion bumped. */
function echoWriter(): ObjectWriter {
  const answer = (obj: KubeObject) => Promise.resolve({ ...obj, metadata: { ...obj.metadata, resourceVersion: `${Number(obj.metadata.resourceVersion ?? 0) + 1}` } });
  return {
    apply: answer, create: answer, replace: answer, replaceStatus: answer,
    patchJson: (ref) => answer(cm(ref.name, '9')),
    delete: () => Promise.resolve(true), get: () => Promise.resolve(undefined),
  };
}

describe('recordingWriter', () => {
  it("keeps the last answer of each child's writes, and no dry run's", async () => {
    const { writer, writtenOf } = recordingWriter(echoWriter(), (obj) => obj.metadata.name ?? '');
    await writer.apply(cm('a', '1'), { fieldManager: 'loom' });
    await writer.apply(cm('a', '5'), { fieldManager: 'loom', dryRun: true });
    await writer.create(cm('b', '1'), { dryRun: true });
    await writer.replace(cm('c', '3'));
    expect(writtenOf('a')?.metadata.resourceVersion).toBe('2');
    expect(writtenOf('b')).toBeUndefined();
    expect(writtenOf('c')?.metadata.resourceVersion).toBe('4');
    await writer.patchJson({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'c' }, []);
    expect(writtenOf('c')?.metadata.resourceVersion).toBe('10');
  });

  it('passes deletes, reads and status writes through without keeping them', async () => {
    const { writer, writtenOf } = recordingWriter(echoWriter(), (obj) => obj.metadata.name ?? '');
    expect(await writer.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'a' })).toBe(true);
    await writer.replaceStatus(cm('s', '1'));
    expect(writtenOf('s')).toBeUndefined();
  });
});
