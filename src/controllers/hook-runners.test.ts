/**
 * A JSONata hook's expression is defined in the evaluator pool as its controller's, so the pool can
 * give each controller (the author) a fair share of the evaluator processes.
 */
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { NO_TRACING, systemClock } from '../engine/index.ts';
import type { Hook } from '../api/index.ts';
import { DEFAULT_CIRCUIT_POLICY, type EvaluatorPool } from '../hooks/index.ts';
import { createMetrics } from '../metrics/metrics.ts';
import type { ExpressionSources } from './expression-sources.ts';
import type { Host } from './host.ts';
import { controllerRunners, runnerFor } from './hook-runners.ts';

it('defines a JSONata hook’s expression under its controller’s kind and name', async () => {
  const owners: (string | undefined)[] = [];
  const evaluators: EvaluatorPool = {
    define(_definition, owner) {
      owners.push(owner);
      return { evaluate: () => Promise.resolve({ response: {} }), forget: () => undefined };
    },
    close: () => undefined,
  };
  // Only what a JSONata hook's runner reads of the host.
  const host = {
    settings: { referenceNamespaces: undefined }, clock: systemClock, tracing: NO_TRACING, evaluators,
    metrics: { hookObserver: () => ({ requestStarted: () => undefined, requestFinished: () => undefined }) },
  } as unknown as Host;
  const sources = { read: () => Promise.reject(new Error('inline only')) } as unknown as ExpressionSources;
  for (const [type, controller] of [['CompositeController', 'web'], ['DecoratorController', 'web']]) {
    await runnerFor(host, { version: 'v1', jsonata: { expression: '{}', timeoutMs: 1_000 } }, { hook: 'sync', controller: { type: type!, controller: controller! } }, sources);
  }
  expect(owners).toEqual(['CompositeController/web', 'DecoratorController/web']);
});

/** Only what a webhook runner and its circuit breaker read of the host, with real metrics. */
function webhookHost() {
  const metrics = createMetrics();
  const host = {
    settings: { referenceNamespaces: undefined, hookCircuit: DEFAULT_CIRCUIT_POLICY }, clock: systemClock, tracing: NO_TRACING, metrics, logger: pino({ level: 'silent' }),
  } as unknown as Host;
  return { host, metrics };
}

const sources = { read: () => Promise.reject(new Error('inline only')) } as unknown as ExpressionSources;
const webhook = (timeoutMs: number): Hook => ({ version: 'v1', webhook: { url: 'http://hook.example/sync', timeoutMs } } as Hook);
const controller = { type: 'CompositeController', controller: 'web' };

it('removes the series of a controller’s circuit breakers when its runners are released', async () => {
  const { host, metrics } = webhookHost();
  const runners = await controllerRunners(host, { hooks: { sync: webhook(1_000) }, endpointConfigs: [], controller }, sources);
  expect(await metrics.registry.metrics()).toContain('loom_hook_circuit_open{controller="web",controller_type="CompositeController",url="http://hook.example/sync"} 0');
  runners.release();
  expect(await metrics.registry.metrics()).not.toContain('loom_hook_circuit_open{');
  metrics.close();
});

it('leaves no circuit breaker series behind for runners that failed to build', async () => {
  const { host, metrics } = webhookHost();
  const built = controllerRunners(host, { hooks: { sync: webhook(1_000), finalize: webhook(0) }, endpointConfigs: [], controller }, sources);
  await expect(built).rejects.toThrow(/timeout 0 ms must be positive/);
  expect(await metrics.registry.metrics()).not.toContain('loom_hook_circuit_open{');
  metrics.close();
});
