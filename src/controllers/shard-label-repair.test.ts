import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { bucketOf, SHARD_LABEL } from '../core/index.ts';
import { manualClock } from '../engine/manual-clock.test-support.ts';
import { createObjectStore, type Informer, type InformerHandler, type ApplyOptions, type InformerLease, type ResourceType } from '../kube/index.ts';
import type { Host } from './host.ts';
import { controlledByOneOf, startShardLabelRepair } from './shard-label-repair.ts';
import { shardScope } from './shard-scope.ts';

const BUCKETS = 4;
const PARENTS: ResourceType = { apiVersion: 'test.loom.dev/v1', resource: 'shardeds', kind: 'Sharded', namespaced: true, subresources: [] };
const CONFIGMAPS: ResourceType = { apiVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, subresources: [] };

/** A UID in `bucket` (FNV-1a cannot be inverted, so it is found by search). */
function uidIn(bucket: number, salt: string): string {
  for (let i = 0; ; i++) if (bucketOf(`${salt}-${i}`, BUCKETS) === bucket) return `${salt}-${i}`;
}

/** An informer whose objects the test adds, and the lease on it. */
function fakeLease(type: ResourceType) {
  const store = createObjectStore();
  const handlers = new Set<InformerHandler>();
  const informer = {
    type, store,
    subscribe(handler: InformerHandler) {
      handlers.add(handler);
      for (const obj of store.list()) handler.onAdd?.(obj);
      return () => handlers.delete(handler);
    },
  } as unknown as Informer;
  const lease: InformerLease = { informer, release: () => undefined };
  return {
    lease,
    add(obj: KubeObject) {
      store.upsert(obj);
      for (const handler of handlers) handler.onAdd?.(obj);
    },
  };
}

/** A host holding bucket 1 whose writer records each apply and resolves `wrote` on the `count`-th. */
function fakeHost(count: number) {
  const patches: { obj: KubeObject; fieldManager: string }[] = [];
  let done = (): void => undefined;
  const wrote = new Promise<void>((resolve) => (done = resolve));
  const writer = {
    apply(obj: KubeObject, options: ApplyOptions) {
      patches.push({ obj, fieldManager: options.fieldManager });
      if (patches.length === count) done();
      return Promise.resolve(obj);
    },
  };
  const host = { clock: manualClock(), writer, settings: { fieldManager: 'loom' }, shard: shardScope(BUCKETS, new Set([1])) } as unknown as Host;
  return { host, patches, wrote };
}

const parent = (name: string, uid: string, label: string): KubeObject => ({
  apiVersion: PARENTS.apiVersion, kind: PARENTS.kind, metadata: { name, namespace: 'ns', uid, labels: { [SHARD_LABEL]: label } },
});
const child = (name: string, owner: { kind: string; uid: string }, label: string): KubeObject => ({
  apiVersion: 'v1', kind: 'ConfigMap',
  metadata: {
    name, namespace: 'ns', uid: `${name}-uid`, labels: { [SHARD_LABEL]: label },
    ownerReferences: [{ apiVersion: PARENTS.apiVersion, kind: owner.kind, name: 'p', uid: owner.uid, controller: true }],
  },
});
const logger = pino({ level: 'silent' });

describe('startShardLabelRepair', () => {
  it('writes the true bucket on a parent and a child whose label names a bucket held here, naming the UID', async () => {
    const { host, patches, wrote } = fakeHost(2);
    const parents = fakeLease(PARENTS);
    const children = fakeLease(CONFIGMAPS);
    const hidden = parent('hidden', uidIn(2, 'p'), '1');
    parents.add(hidden);
    const repair = startShardLabelRepair(host, [
      { lease: parents.lease, role: 'parent', concerns: () => true },
      { lease: children.lease, role: 'child', concerns: controlledByOneOf([PARENTS]) },
    ], logger);
    children.add(child('hidden-child', { kind: 'Sharded', uid: uidIn(3, 'q') }, '1'));
    await wrote;
    await repair.stop();
    // Only that label, by its own field manager, naming the UID: a namesake or a deleted object is refused.
    expect(patches).toEqual([
      {
        obj: { apiVersion: PARENTS.apiVersion, kind: 'Sharded', metadata: { namespace: 'ns', name: 'hidden', uid: hidden.metadata.uid, labels: { [SHARD_LABEL]: '2' } } },
        fieldManager: 'loom-shard',
      },
      {
        obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: 'hidden-child', uid: 'hidden-child-uid', labels: { [SHARD_LABEL]: '3' } } },
        fieldManager: 'loom-shard',
      },
    ]);
  });

  it('leaves alone what no controller here has a say on, what is labelled right, and an object this run takes as a parent', async () => {
    const { host, patches, wrote } = fakeHost(1);
    const parents = fakeLease(PARENTS);
    const children = fakeLease(CONFIGMAPS);
    // Another controller's children of the parent type: a Sharded can be both a parent and a child.
    const parentsAsChildren = fakeLease(PARENTS);
    const repair = startShardLabelRepair(host, [
      { lease: parents.lease, role: 'parent', concerns: (obj) => obj.metadata.name !== 'unselected' },
      { lease: children.lease, role: 'child', concerns: controlledByOneOf([PARENTS]) },
      { lease: parentsAsChildren.lease, role: 'child', concerns: controlledByOneOf([PARENTS]) },
    ], logger);
    parents.add(parent('unselected', uidIn(2, 'p'), '1'));
    parents.add(parent('right', uidIn(1, 'p'), '1'));
    children.add(child('of-a-replicaset', { kind: 'ReplicaSet', uid: uidIn(2, 'r') }, '1'));
    // A Sharded object that is also another Sharded's child: the parent rule keeps its label.
    const both = parent('both', uidIn(1, 'b'), '1');
    both.metadata.ownerReferences = [{ apiVersion: PARENTS.apiVersion, kind: 'Sharded', name: 'p', uid: uidIn(2, 'o'), controller: true }];
    parents.add(both);
    parentsAsChildren.add(both);
    // One the repair does correct, queued last: once it is written, the ones before it were judged.
    children.add(child('last', { kind: 'Sharded', uid: uidIn(0, 'l') }, '1'));
    await wrote;
    await repair.stop();
    expect(patches.map((p) => p.obj.metadata.name)).toEqual(['last']);
  });
  it('aborts the correction in flight when stopped, so a stop never waits for a write that does not answer', async () => {
    const signals: (AbortSignal | undefined)[] = [];
    let started = (): void => undefined;
    const writing = new Promise<void>((resolve) => (started = resolve));
    // A write that answers only when its signal aborts (an API server that does not answer, a throttle queue).
    const writer = {
      apply: (_obj: KubeObject, options: ApplyOptions) => new Promise<KubeObject>((_resolve, reject) => {
        signals.push(options.signal);
        options.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        started();
      }),
    };
    const host = { clock: manualClock(), writer, settings: { fieldManager: 'loom' }, shard: shardScope(BUCKETS, new Set([1])) } as unknown as Host;
    const parents = fakeLease(PARENTS);
    parents.add(parent('hidden', uidIn(2, 'p'), '1'));
    const repair = startShardLabelRepair(host, [{ lease: parents.lease, role: 'parent', concerns: () => true }], logger);
    await writing;
    expect(signals).toHaveLength(1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
    expect(signals[0]!.aborted).toBe(false);
    await repair.stop();
    expect(signals[0]!.aborted).toBe(true);
  });
});
