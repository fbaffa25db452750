/**
 * Claiming a parent's children over a real indexed store and a recording writer: what is claimed,
 * when an orphan is adopted (only after an uncached read confirms the parent), what is released and
 * forgotten, and that a failed write is skipped rather than failing the sync. (Adoption against the
 * real API server is tested in test/composite-claims.test.ts.)
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../api/index.ts';
import { childKey } from '../../apply/index.ts';
import { childRefOf } from '../../core/index.ts';
import { createObjectStore, type ObjectWriter, type ResourceType } from '../../kube/index.ts';
import { claimForParent } from './claim-for-parent.ts';
import type { CompositeContext } from './context.ts';

const configMaps: ResourceType = { apiVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, subresources: [] };
const parent: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', uid: 'uid-w' } };
const selector = { matchLabels: { app: 'w' } };
const controllerRef = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'uid-w', controller: true, blockOwnerDeletion: true };
const cm = (name: string, labels: Record<string, string>, owned: boolean): KubeObject => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels, ...(owned ? { ownerReferences: [controllerRef] } : {}) },
});

/** A context over one store; the writer records each call and answers `get` with `found`. */
function contextOf(objects: KubeObject[], options: { found?: KubeObject | undefined; failReplace?: string } = {}) {
  const store = createObjectStore();
  for (const obj of objects) store.upsert(obj);
  const calls: string[] = [];
  const writer = {
    get: () => (calls.push('get parent'), Promise.resolve(options.found)),
    replace: (obj: KubeObject) => {
      const owned = obj.metadata.ownerReferences?.some((r) => r.uid === 'uid-w') === true;
      calls.push(`${owned ? 'adopt' : 'release'} ${obj.metadata.name ?? ''}`);
      return obj.metadata.name === options.failReplace ? Promise.reject(new Error('409 Conflict')) : Promise.resolve(obj);
    },
  } as Pick<ObjectWriter, 'get' | 'replace'> as ObjectWriter;
  const records = new Map([[childKey(childRefOf(cm('stale', {}, true))), { uid: 'uid-stale', resourceVersion: '1', hash: 'h' }]]);
  const ctx = {
    host: { writer, metrics: { applied: () => undefined } },
    parentType: { ...configMaps, namespaced: true }, labels: { controller: 'c', type: 'CompositeController' },
    logger: pino({ level: 'silent' }), records,
  } as unknown as CompositeContext;
  return { ctx, calls, records, types: [{ type: configMaps, store }] };
}

describe('claimForParent', () => {
  it('claims its own children, adopts a matching orphan after confirming the parent, and releases one that stopped matching', async () => {
    const { ctx, calls, records, types } = contextOf([cm('mine', { app: 'w' }, true), cm('orphan', { app: 'w' }, false), cm('stale', { app: 'x' }, true), cm('other', { app: 'x' }, false)], { found: parent });
    const claimed = await claimForParent(ctx, parent, selector, types);
    expect(claimed.map((c) => c.metadata.name).sort()).toEqual(['mine', 'orphan']);
    expect(calls).toEqual(['get parent', 'adopt orphan', 'release stale']);
    // A released child's apply record must not vouch for it any more.
    expect(records.size).toBe(0);
  });

  it('adopts nothing when the uncached read finds the parent gone or being deleted', async () => {
    for (const found of [undefined, { ...parent, metadata: { ...parent.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }]) {
      const { ctx, calls, types } = contextOf([cm('orphan', { app: 'w' }, false)], { found });
      expect(await claimForParent(ctx, parent, selector, types)).toEqual([]);
      expect(calls).toEqual(['get parent']);
    }
  });

  it('skips an adoption that fails, leaving it to the next sync, and claims the rest', async () => {
    const { ctx, calls, types } = contextOf([cm('mine', { app: 'w' }, true), cm('orphan', { app: 'w' }, false)], { found: parent, failReplace: 'orphan' });
    const claimed = await claimForParent(ctx, parent, selector, types);
    expect(claimed.map((c) => c.metadata.name)).toEqual(['mine']);
    expect(calls).toEqual(['get parent', 'adopt orphan']);
  });

  it('adopts no orphan of a type whose rule says adopt: Never, nor one this parent released by its deletion policy', async () => {
    const released = cm('released', { app: 'w' }, false);
    released.metadata.annotations = { 'loom.dev/released-from': 'uid-w' };
    const { ctx, calls, types } = contextOf([cm('mine', { app: 'w' }, true), cm('orphan', { app: 'w' }, false), released], { found: parent });
    const never = types.map((t) => ({ ...t, rule: { adopt: 'Never' as const } }));
    expect((await claimForParent(ctx, parent, selector, never)).map((c) => c.metadata.name)).toEqual(['mine']);
    expect(calls).toEqual([]);
    expect((await claimForParent(ctx, parent, selector, types)).map((c) => c.metadata.name).sort()).toEqual(['mine', 'orphan']);
    expect(calls).toEqual(['get parent', 'adopt orphan']);
  });
});
