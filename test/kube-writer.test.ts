/**
 * The object writer against the real API server: server-side apply (and its dry run), create-only
 * apply, replace, the UID precondition on delete, and uncached reads.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/object.ts';
import { createObjectWriter, writerFromDiscovery, type ObjectWriter } from '../src/kube/object-writer.ts';
import { discover } from '../src/kube/discovery.ts';
import { createRestClient } from '../src/kube/rest-client.ts';
import { createTestNamespace, testKubeConfig } from './support/cluster.ts';

const kc = testKubeConfig();
const writes: string[] = [];
const client = createRestClient({ kubeConfig: kc, observe: ({ method }) => method !== 'GET' && writes.push(method) });
let writer: ObjectWriter;
let namespace: string;

beforeAll(async () => {
  namespace = await createTestNamespace(kc, 'kube-writer');
  const snapshot = await discover(client);
  writer = createObjectWriter(client, (apiVersion, kind) => {
    const type = snapshot.byKind(apiVersion, kind);
    if (!type) throw new Error(`unknown type ${kind}.${apiVersion}`);
    return type;
  }, 'loom-test');
});

const configMap = (name: string, data: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });

describe('object writer', () => {
  it('applies server-side, and a dry run changes nothing', async () => {
    const created = await writer.apply(configMap('applied', { a: '1' }), { fieldManager: 'loom' });
    expect(created.metadata.managedFields).toMatchObject([{ manager: 'loom', operation: 'Apply' }]);
    const dry = await writer.apply(configMap('applied', { a: '2' }), { fieldManager: 'loom', dryRun: true });
    expect(dry.data).toEqual({ a: '2' });
    expect((await writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'applied' }))?.data).toEqual({ a: '1' });
  });

  it('applies create-only: creates as an Apply manager, whose later applies prune what they drop', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'create-only' };
    const labelled = { ...configMap('create-only', { a: '1', b: '2' }), metadata: { name: 'create-only', namespace, labels: { x: '1' } } };
    const created = await writer.apply(labelled, { fieldManager: 'loom', createOnly: true });
    expect(created.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'loom', operation: 'Apply' })]);
    const pruned = await writer.apply(configMap('create-only', { a: '1' }), { fieldManager: 'loom' });
    expect(pruned.data).toEqual({ a: '1' });
    expect(pruned.metadata.labels).toBeUndefined();
    await expect(writer.apply(configMap('create-only', { c: '3' }), { fieldManager: 'loom', createOnly: true }))
      .rejects.toMatchObject({ status: 409, reason: 'AlreadyExists' });
    expect((await writer.get(ref))?.metadata.resourceVersion).toBe(pruned.metadata.resourceVersion);
  });

  it('refuses a create-only apply onto an object someone else made, and leaves it as it was', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'theirs' };
    const theirs = await writer.create(configMap('theirs', { keep: 'me' }));
    const mine = { ...configMap('theirs', { owner: 'loom' }), metadata: { name: 'theirs', namespace, labels: { app: 'loom' } } };
    const posted = await writer.create(mine).catch((err: unknown) => err);
    expect(posted).toMatchObject({ status: 409, reason: 'AlreadyExists' });
    for (const dryRun of [true, false]) {
      // Refused in the very words a POST gets, so both apply strategies report a taken name alike.
      await expect(writer.apply(mine, { fieldManager: 'loom', createOnly: true, dryRun }))
        .rejects.toMatchObject({ status: 409, reason: 'AlreadyExists', message: (posted as Error).message });
    }
    const after = await writer.get(ref);
    expect({ rv: after?.metadata.resourceVersion, labels: after?.metadata.labels, data: after?.data }).toEqual({ rv: theirs.metadata.resourceVersion, labels: undefined, data: { keep: 'me' } });
  });

  it('replaces with optimistic concurrency', async () => {
    const created = await writer.create(configMap('replaced', { a: '1' }));
    const updated = await writer.replace({ ...created, data: { a: '2' } });
    expect(updated.data).toEqual({ a: '2' });
    await expect(writer.replace({ ...created, data: { a: '3' } })).rejects.toMatchObject({ status: 409, reason: 'Conflict' });
  });

  it('deletes only the object with the expected UID, and reports an absent one', async () => {
    const created = await writer.create(configMap('deleted', {}));
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'deleted' };
    await expect(writer.delete(ref, { uid: 'not-the-uid' })).rejects.toMatchObject({ status: 409 });
    expect(await writer.delete(ref, { uid: created.metadata.uid })).toBe(true);
    expect(await writer.delete(ref)).toBe(false);
    expect(await writer.get(ref)).toBeUndefined();
  });

  it('records a one-off tool\'s writes under the manager it names, never as loom (whose takeover would claim them)', async () => {
    const tool = await writerFromDiscovery(client, 'loom-cli');
    const created = await tool.create(configMap('one-off', { a: '1' }));
    const replaced = await tool.replace({ ...created, data: { a: '2' } });
    const entries = replaced.metadata.managedFields as { manager: string; operation: string }[];
    expect(entries.map((entry) => [entry.manager, entry.operation])).toEqual([['loom-cli', 'Update']]);
  });

  it('lets the observer see every write', () => {
    expect(writes.length).toBeGreaterThanOrEqual(8);
    expect(new Set(writes)).toEqual(new Set(['POST', 'PATCH', 'PUT', 'DELETE']));
  });
});
