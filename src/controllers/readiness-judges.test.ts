/**
 * A controller's hook runners and readiness judge are built and released together: a type's
 * `readyWhen` that does not compile keeps the controller from starting (a JsonataCompileError, which
 * the meta controller reports as `CompileError`) and leaves no expression defined.
 */
import { describe, expect, it } from 'vitest';
import { NO_TRACING, systemClock } from '../engine/index.ts';
import { JsonataCompileError, type EvaluatorPool } from '../hooks/index.ts';
import type { ExpressionSources } from './expression-sources.ts';
import type { Host } from './host.ts';
import { runnersAndJudge } from './readiness-judges.ts';

/** A host with an evaluator pool that counts the expressions defined and not yet forgotten. */
function hostWithPool() {
  const live = new Set<string>();
  const evaluators: EvaluatorPool = {
    define(definition) {
      const id = `${definition.label ?? definition.hook}: ${definition.expression}`;
      live.add(id);
      return { evaluate: () => Promise.resolve({ response: {} }), forget: () => void live.delete(id) };
    },
    close: () => undefined,
  };
  // Only what a JSONata hook's runner and a readiness judge read of the host.
  const host = {
    settings: { referenceNamespaces: undefined }, clock: systemClock, tracing: NO_TRACING, evaluators,
    metrics: { hookObserver: () => ({ requestStarted: () => undefined, requestFinished: () => undefined }) },
  } as unknown as Host;
  return { host, live };
}

const sources = { read: () => Promise.reject(new Error('inline only')) } as unknown as ExpressionSources;
const hooks = { hooks: { sync: { version: 'v1' as const, jsonata: { expression: '{}', timeoutMs: 1_000 } } }, endpointConfigs: [], controller: { type: 'CompositeController', controller: 'db' } };
const database = (readyWhen: string) => ({ apiVersion: 'db.example.com/v1', kind: 'Database', readyWhen, field: 'spec.childResources[0].readyWhen' });

describe('runnersAndJudge', () => {
  it('fails on a readyWhen that does not compile, naming its field, with nothing left defined', async () => {
    const { host, live } = hostWithPool();
    const start = runnersAndJudge(host, hooks, sources, [database('status.phase = ')]);
    await expect(start).rejects.toBeInstanceOf(JsonataCompileError);
    await expect(start).rejects.toThrow(/^spec\.childResources\[0\]\.readyWhen: JSONata syntax error/);
    expect([...live]).toEqual([]);
  });

  it('releases the hooks\' and the types\' expressions together', async () => {
    const { host, live } = hostWithPool();
    const { runners, readiness } = await runnersAndJudge(host, hooks, sources, [database('status.phase = "Ready"')]);
    expect([...live].sort()).toEqual(['spec.childResources[0].readyWhen: status.phase = "Ready"', 'sync: {}']);
    // The fake pool's answer has no value: the type's rule judged the Database, and said so.
    const db = { apiVersion: 'db.example.com/v1', kind: 'Database', metadata: { name: 'db' } };
    await expect(readiness.judge([db], new AbortController().signal)).resolves.toEqual([
      { status: 'Unknown', message: 'spec.childResources[0].readyWhen gave no value, not true or false' },
    ]);
    runners.release();
    expect([...live]).toEqual([]);
  });
});
