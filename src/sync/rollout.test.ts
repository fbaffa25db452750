import { describe, expect, it } from 'vitest';
import type { CompositeController, CompositeHookResponse, ControllerRevision, KubeObject } from '../api/index.ts';
import { parentPatchOf } from '../core/controller-revisions.ts';
import { admitCall } from '../hooks/circuit-gate.ts';
import { HookCircuitOpenError, createCircuitBreaker, type CircuitGuard } from '../hooks/index.ts';
import { rollingAnswer, type RollingController, type RollingPorts } from './rollout.ts';

const FIELD_PATHS = ['spec.template'];

const parent: KubeObject = {
  apiVersion: 'ctl.example.com/v1', kind: 'CatSet',
  metadata: { name: 'web', namespace: 'ns', uid: 'p-1' },
  spec: { template: { image: 'v2' } },
};

function revision(name: string, patch: ControllerRevision['parentPatch']): ControllerRevision {
  return { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'ControllerRevision', metadata: { name, namespace: 'ns' }, parentPatch: patch };
}

const rolling: RollingController = {
  controller: { spec: { parentResource: { revisionHistory: { fieldPaths: FIELD_PATHS } }, generateSelector: true } } as unknown as CompositeController,
  parentType: { apiVersion: 'ctl.example.com/v1', resource: 'catsets' },
  applyStrategy: 'dynamic-apply',
  strategyFor: () => undefined,
};

/**
 * Ports whose `ask` calls a healthy hook behind `guard` as the webhook runner does: admitted by the
 * breaker, answered on a later turn of the event loop, and settled `unknown` when aborted before then.
 */
function portsBehind(guard: CircuitGuard): RollingPorts {
  return {
    claimRevisions: () => Promise.resolve([revision('latest', parentPatchOf(parent, FIELD_PATHS)), revision('old', { spec: { template: { image: 'v1' } } })]),
    async ask(_call, signal) {
      const admission = admitCall(guard, 'sync hook')!;
      await new Promise((resolve) => setImmediate(resolve));
      guard.breaker.settle(admission, signal.aborted ? 'unknown' : 'up');
      signal.throwIfAborted();
      const answer: CompositeHookResponse = { status: {}, children: [], resyncAfterSeconds: 0, finalized: false };
      return answer;
    },
    writeRevision: () => Promise.resolve(),
  };
}

describe('rollingAnswer behind a circuit breaker', () => {
  it('lets the half-open probe reach its verdict when the other revision\'s ask fails fast, so the breaker closes', async () => {
    const time = { now: 0 };
    const breaker = createCircuitBreaker({ policy: { failures: 1, openMs: 1_000, maxOpenMs: 1_000 }, clock: { now: () => time.now } });
    breaker.settle({ admitted: true, probe: false }, 'down');
    time.now = 1_000;
    const call = { parent, claimed: [], finalizing: false, selector: { matchLabels: { app: 'web' } } };
    const answered = rollingAnswer(rolling, portsBehind({ breaker, endpoint: 'http://hook/sync' }), call, new AbortController().signal);
    await expect(answered).rejects.toBeInstanceOf(HookCircuitOpenError);
    expect(breaker.state()).toBe('closed');
  });

  it('fails with the first failure, not with the abort it caused in the other revision\'s ask', async () => {
    const ports: RollingPorts = {
      ...portsBehind({ breaker: createCircuitBreaker({ policy: { failures: 0, openMs: 1, maxOpenMs: 1 }, clock: { now: () => 0 } }), endpoint: 'http://hook/sync' }),
      async ask(call, signal) {
        if ((call.shown?.spec as { template: { image: string } }).template.image === 'v2') {
          await new Promise((resolve) => setImmediate(resolve));
          // As the webhook runner says it: the caller's abort, its reason as the cause.
          if (signal.aborted) throw new Error('sync hook: aborted by the caller', { cause: signal.reason });
          return { status: {}, children: [], resyncAfterSeconds: 0, finalized: false };
        }
        throw new Error('HTTP 500 for the old revision');
      },
    };
    const call = { parent, claimed: [], finalizing: false, selector: { matchLabels: { app: 'web' } } };
    await expect(rollingAnswer(rolling, ports, call, new AbortController().signal)).rejects.toThrow('HTTP 500 for the old revision');
  });
});
