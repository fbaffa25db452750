/**
 * One CompositeController sync through fake ports: the order of its steps, what a failure at each step
 * leaves unwritten, and the finalizer's lifecycle. (The ports over the real cluster are exercised by
 * the integration suite.)
 */
import { describe, expect, it } from 'vitest';
import { parseCompositeController, type CompositeController, type CompositeHookResponse, type KubeObject } from '../api/index.ts';
import { withField } from '../api/testdata/load.test-support.ts';
import { minimalComposite } from '../api/testdata/manifests.test-support.ts';
import { finalizerName } from '../core/index.ts';
import { PlanStoppedError } from '../apply/index.ts';
import { RetryAfterError } from '../engine/index.ts';
import type { ParentCall } from './composite-ports.ts';
import { syncParent } from './composite-sync.ts';
import type { CompositeSyncPorts } from './composite-ports.ts';

function controllerOf(manifest: unknown): CompositeController {
  const parsed = parseCompositeController(manifest);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.value;
}

const plain = controllerOf(withField(minimalComposite, 'spec.generateSelector', true));
const ordered = controllerOf(withField(withField(minimalComposite, 'spec.generateSelector', true), 'spec.orderedTeardown', true));
const finalizing = controllerOf(withField(withField(minimalComposite, 'spec.generateSelector', true), 'spec.hooks.finalize', { webhook: { url: 'http://widgets.hooks/finalize' } }));
const FINALIZER = finalizerName(plain.name);

const parentNamed = (name: string, metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'ns', uid: `uid-${name}`, generation: 1, ...metadata },
});
const child = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' } };

interface Fakes {
  calls: string[];
  hookCalls: ParentCall[];
  ports: CompositeSyncPorts;
}

/** Ports over one cached parent that record each call; `fail` makes one step throw, `answer` is the hook's. */
function fakePorts(parent: KubeObject | undefined, options: { fail?: string; answer?: Partial<CompositeHookResponse>; writeFailures?: Error[]; stopIfs?: (() => string | undefined)[]; claimed?: KubeObject[]; desired?: KubeObject[][] } = {}): Fakes {
  const calls: string[] = [];
  const hookCalls: ParentCall[] = [];
  const step = <T>(name: string, result: T): Promise<T> => {
    calls.push(name);
    return options.fail === name ? Promise.reject(new Error(`${name} failed`)) : Promise.resolve(result);
  };
  const ports: CompositeSyncPorts = {
    parent: () => parent,
    related: () => step('related', undefined),
    setFinalizer: (obj, present) => {
      const others = (obj.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
      return step(present ? 'add finalizer' : 'remove finalizer', { ...obj, metadata: { ...obj.metadata, finalizers: present ? [...others, FINALIZER] : others } });
    },
    claimChildren: () => step('claim', options.claimed ?? [child]),
    answer: (call) => {
      hookCalls.push(call);
      return step(call.finalizing ? 'finalize hook' : 'sync hook', { children: [child], status: { ok: true }, resyncAfterSeconds: 0, finalized: false, ...options.answer });
    },
    manageChildren: (writes) => {
      options.stopIfs?.push(writes.stopIf);
      options.desired?.push(writes.desired);
      return step('manage children', { failures: options.writeFailures ?? [] });
    },
    writeStatus: (_parent, _status, { childrenWritten }) => step(`status (${childrenWritten ? 'converged' : 'not converged'})`, undefined),
  };
  return { calls, hookCalls, ports };
}

const sync = (controller: CompositeController, fakes: Fakes, signal = new AbortController().signal) =>
  syncParent({ controller, finalizer: finalizerName(controller.name) }, fakes.ports, 'ns/w', signal);

describe('syncParent', () => {
  it('does nothing for a parent that is gone', async () => {
    const fakes = fakePorts(undefined);
    expect(await sync(plain, fakes)).toEqual({});
    expect(fakes.calls).toEqual([]);
  });

  it('asks for related objects first, then claims, calls the hook, writes children and then the status', async () => {
    const fakes = fakePorts(parentNamed('w'));
    expect(await sync(plain, fakes)).toEqual({});
    expect(fakes.calls).toEqual(['related', 'claim', 'sync hook', 'manage children', 'status (converged)']);
    expect(fakes.hookCalls[0]).toMatchObject({ claimed: [child], finalizing: false, selector: { matchLabels: { 'controller-uid': 'uid-w' } } });
  });

  it('adds the finalizer of a controller with a finalize hook before claiming', async () => {
    const fakes = fakePorts(parentNamed('w'));
    await sync(finalizing, fakes);
    expect(fakes.calls).toEqual(['related', 'add finalizer', 'claim', 'sync hook', 'manage children', 'status (converged)']);
    expect(fakes.hookCalls[0]?.parent.metadata.finalizers).toEqual([FINALIZER]);
  });

  it.each([
    ['related', ['related']],
    ['claim', ['related', 'claim']],
    ['sync hook', ['related', 'claim', 'sync hook']],
  ])('writes no child and no status when %s fails', async (failing, calls) => {
    const fakes = fakePorts(parentNamed('w'), { fail: failing });
    await expect(sync(plain, fakes)).rejects.toThrow(`${failing} failed`);
    expect(fakes.calls).toEqual(calls);
  });

  it('writes the status without convergence when a child write fails, then fails the sync naming it', async () => {
    const fakes = fakePorts(parentNamed('w'), { writeFailures: [new Error('create Pod ns/p: 403 Forbidden')] });
    await expect(sync(plain, fakes)).rejects.toThrow('create Pod ns/p: 403 Forbidden');
    expect(fakes.calls.slice(-2)).toEqual(['manage children', 'status (not converged)']);
  });

  it('calls the finalize hook for a parent being deleted and removes the finalizer once it is finalized', async () => {
    const deleted = parentNamed('w', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [FINALIZER] });
    const fakes = fakePorts(deleted, { answer: { finalized: true } });
    await sync(finalizing, fakes);
    expect(fakes.calls).toEqual(['related', 'claim', 'finalize hook', 'remove finalizer', 'status (converged)']);
    expect(fakes.hookCalls[0]?.finalizing).toBe(true);
  });

  it('keeps the finalizer while the finalize hook is not done', async () => {
    const deleted = parentNamed('w', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [FINALIZER] });
    const fakes = fakePorts(deleted, { answer: { finalized: false } });
    await sync(finalizing, fakes);
    expect(fakes.calls).not.toContain('remove finalizer');
    expect(fakes.calls).toContain('finalize hook');
  });

  it('leaves alone a parent its controller\'s label selector does not match', async () => {
    const selective = controllerOf(withField(minimalComposite, 'spec.parentResource.labelSelector', { matchLabels: { tier: 'web' } }));
    const fakes = fakePorts(parentNamed('w', { labels: { tier: 'db' } }));
    expect(await sync(selective, fakes)).toEqual({});
    expect(fakes.calls).toEqual([]);
  });

  it('asks to be synced again after the hook\'s resyncAfterSeconds', async () => {
    const fakes = fakePorts(parentNamed('w'), { answer: { resyncAfterSeconds: 2.5 } });
    expect(await sync(plain, fakes)).toEqual({ requeueAfterMs: 2_500 });
  });

  describe('a sync whose answer goes stale while its children are written', () => {
    it('has the child writes stop once the cached parent\'s spec moves past the one the hook answered, or the controller stops', async () => {
      let cached = parentNamed('w');
      const stopIfs: (() => string | undefined)[] = [];
      const fakes = fakePorts(undefined, { stopIfs });
      fakes.ports.parent = () => cached;
      const stopping = new AbortController();
      await sync(plain, fakes, stopping.signal);
      const stopIf = stopIfs[0]!;
      expect(stopIf()).toBeUndefined();
      cached = parentNamed('w', { generation: 2 });
      expect(stopIf()).toBe("the object's spec changed (generation 1 → 2)");
      cached = parentNamed('w');
      stopping.abort();
      expect(stopIf()).toBe('the controller is stopping');
    });

    it('ends a stopped sync with a requeue and no status write: a half-applied stale plan never claims convergence', async () => {
      const stopped = new PlanStoppedError('create Pod ns/p', 'the object was deleted');
      const fakes = fakePorts(parentNamed('w'), { writeFailures: [new Error('create Pod ns/q failed'), stopped] });
      const result = sync(plain, fakes);
      await expect(result).rejects.toBeInstanceOf(RetryAfterError);
      await expect(result).rejects.toThrow('the object was deleted');
      expect(fakes.calls).toEqual(['related', 'claim', 'sync hook', 'manage children']);
    });
  });
});

describe('syncParent: the finalizer held for the children\'s lifecycle policies', () => {
  const orphan = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: 'ns', annotations: { 'loom.dev/deletion-policy': 'Orphan' } } };
  const waved = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late', namespace: 'ns', annotations: { 'loom.dev/wave': '1' } } };
  const deleted = (finalizers: string[] = [FINALIZER]) => parentNamed('w', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers });

  it('adds the finalizer once the answer holds a child that needs it, before any child is written', async () => {
    const fakes = fakePorts(parentNamed('w'), { claimed: [], answer: { children: [child, orphan] } });
    await sync(plain, fakes);
    expect(fakes.calls).toEqual(['related', 'claim', 'sync hook', 'add finalizer', 'manage children', 'status (converged)']);
  });

  it('adds none without such children, keeps it while one is claimed, and removes it once none is claimed or desired', async () => {
    const none = fakePorts(parentNamed('w'), { claimed: [], answer: { children: [child] } });
    await sync(plain, none);
    expect(none.calls).not.toContain('add finalizer');
    const held = fakePorts(parentNamed('w', { finalizers: [FINALIZER] }), { claimed: [child, orphan], answer: { children: [child] } });
    await sync(plain, held);
    expect(held.calls).toEqual(['related', 'claim', 'sync hook', 'manage children', 'status (converged)']);
    const done = fakePorts(parentNamed('w', { finalizers: [FINALIZER] }), { claimed: [child], answer: { children: [child] } });
    await sync(plain, done);
    expect(done.calls).toEqual(['related', 'claim', 'sync hook', 'remove finalizer', 'manage children', 'status (converged)']);
  });

  it('holds it for children in order only with spec.orderedTeardown: without it, the garbage collector deletes them and the parent takes no write', async () => {
    const unordered = fakePorts(parentNamed('w'), { claimed: [], answer: { children: [child, waved] } });
    await sync(plain, unordered);
    expect(unordered.calls).toEqual(['related', 'claim', 'sync hook', 'manage children', 'status (converged)']);
    const inOrder = fakePorts(parentNamed('w'), { claimed: [], answer: { children: [child, waved] } });
    await sync(ordered, inOrder);
    expect(inOrder.calls).toEqual(['related', 'claim', 'sync hook', 'add finalizer', 'manage children', 'status (converged)']);
  });

  it('removes the finalizer ordered children needed once the controller no longer asks for orderedTeardown', async () => {
    const fakes = fakePorts(parentNamed('w', { finalizers: [FINALIZER] }), { claimed: [child, waved], answer: { children: [child, waved] } });
    await sync(plain, fakes);
    expect(fakes.calls).toEqual(['related', 'claim', 'sync hook', 'remove finalizer', 'manage children', 'status (converged)']);
  });

  it('tears the children of a deleted parent down in order with spec.orderedTeardown', async () => {
    const desired: KubeObject[][] = [];
    const fakes = fakePorts(deleted(), { claimed: [child, waved], desired });
    await sync(ordered, fakes);
    expect(fakes.calls).toEqual(['claim', 'manage children']);
    expect(desired).toEqual([[]]);
  });

  it('counts a type\'s rule as the children\'s own', async () => {
    const fakes = fakePorts(parentNamed('w'), { claimed: [], answer: { children: [child] } });
    fakes.ports.childRule = (obj) => (obj.kind === 'Pod' ? { deletionPolicy: 'Retain' } : undefined);
    await sync(plain, fakes);
    expect(fakes.calls).toContain('add finalizer');
  });

  it('tears down a deleted parent\'s children toward none while one needs loom, keeping the finalizer and asking no hook', async () => {
    const desired: KubeObject[][] = [];
    const fakes = fakePorts(deleted(), { claimed: [child, orphan], answer: { children: [child] }, desired });
    expect(await sync(plain, fakes)).toEqual({});
    expect(fakes.calls).toEqual(['claim', 'manage children']);
    expect(desired).toEqual([[]]);
  });

  it('fails a teardown whose writes fail, naming them', async () => {
    const fakes = fakePorts(deleted(), { claimed: [orphan], writeFailures: [new Error('release ConfigMap ns/keep: 403 Forbidden')] });
    await expect(sync(plain, fakes)).rejects.toThrow('release ConfigMap ns/keep: 403 Forbidden');
    expect(fakes.calls).toEqual(['claim', 'manage children']);
  });

  it('removes the finalizer of a deleted parent once no claimed child needs loom, leaving the rest to the garbage collector', async () => {
    const fakes = fakePorts(deleted(), { claimed: [child] });
    await sync(plain, fakes);
    expect(fakes.calls).toEqual(['claim', 'related', 'claim', 'remove finalizer', 'sync hook', 'status (converged)']);
  });

  it('removes the finalizer of a deleted parent whose only child needing loom is itself terminating with policy Delete', async () => {
    // A wave-1 child stuck on a finalizer of its own would otherwise keep the parent's forever.
    const stuck = { ...waved, metadata: { ...waved.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['example.com/cleanup'] } };
    const fakes = fakePorts(deleted(), { claimed: [child, stuck] });
    await sync(ordered, fakes);
    expect(fakes.calls).toContain('remove finalizer');
  });

  it('keeps the finalizer when a child that needs loom reaches the cache between the teardown check and the claim', async () => {
    const fakes = fakePorts(deleted(), { claimed: [] });
    let claims = 0;
    fakes.ports.claimChildren = () => {
      fakes.calls.push('claim');
      return Promise.resolve(claims++ === 0 ? [child] : [child, orphan]);
    };
    await sync(plain, fakes);
    expect(fakes.calls).toEqual(['claim', 'related', 'claim', 'sync hook', 'status (converged)']);
  });

  it('lets go of a parent that stopped matching the controller\'s parent selector, removing the finalizer whatever its children need', async () => {
    const selective = controllerOf(withField(withField(minimalComposite, 'spec.generateSelector', true), 'spec.parentResource.labelSelector', { matchLabels: { tier: 'web' } }));
    const fakes = fakePorts(parentNamed('w', { labels: { tier: 'db' }, finalizers: [FINALIZER] }), { claimed: [orphan], answer: { children: [orphan] } });
    await sync(selective, fakes);
    expect(fakes.calls).toEqual(['related', 'claim', 'sync hook', 'remove finalizer', 'manage children', 'status (converged)']);
  });

  it('leaves a deletion with a propagation policy of its own to the garbage collector', async () => {
    const fakes = fakePorts(deleted([FINALIZER, 'orphan']), { claimed: [orphan] });
    await sync(plain, fakes);
    expect(fakes.calls).toEqual(['claim', 'related', 'claim', 'remove finalizer', 'sync hook', 'status (converged)']);
  });

  it('with a finalize hook that is done, tears the children that need loom down before removing the finalizer', async () => {
    const desired: KubeObject[][] = [];
    const tearing = fakePorts(deleted(), { claimed: [orphan], answer: { finalized: true }, desired });
    await sync(finalizing, tearing);
    expect(tearing.calls).toEqual(['related', 'claim', 'finalize hook', 'manage children', 'status (converged)']);
    expect(desired).toEqual([[]]);
    const done = fakePorts(deleted(), { claimed: [child], answer: { finalized: true } });
    await sync(finalizing, done);
    expect(done.calls).toEqual(['related', 'claim', 'finalize hook', 'remove finalizer', 'status (converged)']);
  });

  it('with a finalize hook not done yet, writes its answer as the desired children', async () => {
    const desired: KubeObject[][] = [];
    const fakes = fakePorts(deleted(), { claimed: [child, orphan], answer: { finalized: false, children: [child] }, desired });
    await sync(finalizing, fakes);
    expect(fakes.calls).toEqual(['related', 'claim', 'finalize hook', 'manage children', 'status (converged)']);
    expect(desired).toEqual([[child]]);
  });
});

