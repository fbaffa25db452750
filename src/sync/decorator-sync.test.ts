/**
 * One DecoratorController sync through fake ports: the order of its steps, what a failure at each
 * step leaves unwritten, the target writes it plans and the finalizer's lifecycle. (The ports over the
 * real cluster are exercised by the integration suite.)
 */
import { describe, expect, it } from 'vitest';
import { parseDecoratorController, type DecoratorController, type DecoratorHookResponse, type KubeObject } from '../api/index.ts';
import { withField } from '../api/testdata/load.test-support.ts';
import { minimalDecorator } from '../api/testdata/manifests.test-support.ts';
import type { TargetWrites } from '../core/index.ts';
import type { DecoratorSyncPorts } from './decorator-ports.ts';
import { syncTarget } from './decorator-sync.ts';
import { PlanStoppedError } from '../apply/index.ts';
import { RetryAfterError } from '../engine/index.ts';

function controllerOf(manifest: unknown): DecoratorController {
  const parsed = parseDecoratorController(manifest);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.value;
}

const plain = controllerOf(minimalDecorator);
const withFinalize = controllerOf(withField(minimalDecorator, 'spec.hooks.finalize', { jsonata: { expression: '{ "finalized": true }' } }));
const FINALIZER = 'metacontroller.io/decoratorcontroller-decorate';
const target = (metadata: Partial<KubeObject['metadata']> = {}): KubeObject =>
  ({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', namespace: 'ns', uid: 'uid-web', ...metadata } });
const attachment = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-0', namespace: 'ns' } };

/** The target as the API server answers a write: a status written into the object itself (no subresource) moves a CRD's generation. */
function writtenBy(planned: TargetWrites): KubeObject {
  const { target: written } = planned;
  const generation = (written.metadata.generation ?? 1) + (planned.writeObject && written.status !== undefined ? 1 : 0);
  return { ...written, metadata: { ...written.metadata, generation } };
}

/** Ports over one target that record each call; `fail` makes one step throw, `answer` is the hook's. */
function fakePorts(found: KubeObject | undefined, options: { selected?: boolean; fail?: string; answer?: Partial<DecoratorHookResponse>; writeFailures?: Error[]; stopIfs?: (() => string | undefined)[]; statusSubresource?: boolean } = {}) {
  const calls: string[] = [];
  const writes: TargetWrites[] = [];
  const step = <T>(name: string, result: T): Promise<T> => {
    calls.push(name);
    return options.fail === name ? Promise.reject(new Error(`${name} failed`)) : Promise.resolve(result);
  };
  const ports: DecoratorSyncPorts<string> = {
    target: () => found && { object: found, selected: options.selected ?? true, statusSubresource: options.statusSubresource ?? true },
    related: () => step('related', undefined),
    setFinalizer: (obj, present) => step(present ? 'add finalizer' : 'remove finalizer', {
      ...obj, metadata: { ...obj.metadata, finalizers: present ? [FINALIZER] : [] },
    }),
    attachments: () => (calls.push('attachments'), [attachment]),
    answer: (call) => step(call.finalizing ? 'finalize hook' : 'sync hook', {
      labels: { decorated: 'yes' }, annotations: {}, status: null, attachments: [attachment], resyncAfterSeconds: 0, finalized: false, ...options.answer,
    }),
    writeTarget: (planned) => (writes.push(planned), step('write target', writtenBy(planned))),
    manageAttachments: (_target, _desired, _observed, stopIf) => {
      options.stopIfs?.push(stopIf);
      return step('manage attachments', options.writeFailures ?? []);
    },
  };
  return { calls, writes, ports };
}

const sync = (controller: DecoratorController, ports: DecoratorSyncPorts<string>) =>
  syncTarget({ controller, finalizer: FINALIZER }, ports, 'ns/web', new AbortController().signal);

describe('syncTarget', () => {
  it('does nothing for a target that is gone, or that its rule does not select', async () => {
    for (const fakes of [fakePorts(undefined), fakePorts(target(), { selected: false })]) {
      expect(await sync(plain, fakes.ports)).toEqual({});
      expect(fakes.calls).toEqual([]);
    }
  });

  it('reads related objects and attachments, asks the hook, writes the target, then the attachments', async () => {
    const fakes = fakePorts(target());
    await sync(plain, fakes.ports);
    expect(fakes.calls).toEqual(['related', 'attachments', 'sync hook', 'write target', 'manage attachments']);
    expect(fakes.writes[0]).toMatchObject({ writeObject: true, writeStatus: false, target: { metadata: { labels: { decorated: 'yes' } } } });
  });

  it.each([
    ['related', ['related']],
    ['sync hook', ['related', 'attachments', 'sync hook']],
  ])('writes nothing when %s fails', async (failing, calls) => {
    const fakes = fakePorts(target(), { fail: failing });
    await expect(sync(plain, fakes.ports)).rejects.toThrow(`${failing} failed`);
    expect(fakes.calls).toEqual(calls);
  });

  it('fails the sync naming an attachment write that failed, after the target was written', async () => {
    const fakes = fakePorts(target(), { writeFailures: [new Error('create Service ns/web-0: 403 Forbidden')] });
    await expect(sync(plain, fakes.ports)).rejects.toThrow('create Service ns/web-0: 403 Forbidden');
    expect(fakes.calls.slice(-2)).toEqual(['write target', 'manage attachments']);
  });

  it('adds the finalizer of a decorator with a finalize hook before the hook', async () => {
    const fakes = fakePorts(target());
    await sync(withFinalize, fakes.ports);
    expect(fakes.calls.slice(0, 2)).toEqual(['related', 'add finalizer']);
  });

  it('runs the finalize hook for a target being deleted and removes the finalizer in the target write once finalized', async () => {
    const fakes = fakePorts(target({ deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [FINALIZER] }), { answer: { finalized: true } });
    await sync(withFinalize, fakes.ports);
    expect(fakes.calls).toEqual(['related', 'attachments', 'finalize hook', 'write target']);
    expect(fakes.writes[0]?.target.metadata.finalizers).toEqual([]);
  });

  it('has the attachment writes stop once the target is deleted or the controller stops', async () => {
    const stopIfs: (() => string | undefined)[] = [];
    const fakes = fakePorts(target(), { stopIfs });
    const stopping = new AbortController();
    await syncTarget({ controller: plain, finalizer: FINALIZER }, fakes.ports, 'ns/web', stopping.signal);
    const stopIf = stopIfs[0]!;
    expect(stopIf()).toBeUndefined();
    fakes.ports.target = () => undefined;
    expect(stopIf()).toBe('the object was deleted');
    stopping.abort();
    expect(stopIf()).toBe('the controller is stopping');
  });

  it('ends a sync whose attachment writes were stopped with a requeue, not a failure', async () => {
    const fakes = fakePorts(target(), { writeFailures: [new PlanStoppedError('create Service ns/web-0', 'the controller is stopping')] });
    const result = sync(plain, fakes.ports);
    await expect(result).rejects.toBeInstanceOf(RetryAfterError);
    await expect(result).rejects.toThrow('the controller is stopping');
  });
  it('does not stop its attachment writes for its own status write into a target without a status subresource', async () => {
    const stopIfs: (() => string | undefined)[] = [];
    const fakes = fakePorts(target({ generation: 1 }), { stopIfs, statusSubresource: false, answer: { status: { syncedAt: 'now' } } });
    await sync(plain, fakes.ports);
    expect(fakes.writes[0]).toMatchObject({ writeObject: true, writeStatus: false });
    // The cache then holds the target as written: its generation moved by the sync's own write.
    const written = writtenBy(fakes.writes[0]!);
    expect(written.metadata.generation).toBe(2);
    fakes.ports.target = () => ({ object: written, selected: true, statusSubresource: false });
    expect(stopIfs[0]!()).toBeUndefined();
    fakes.ports.target = () => ({ object: { ...written, metadata: { ...written.metadata, generation: 3 } }, selected: true, statusSubresource: false });
    expect(stopIfs[0]!()).toBe("the object's spec changed (generation 2 → 3)");
  });
});
