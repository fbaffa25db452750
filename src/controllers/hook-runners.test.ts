/**
 * A JSONata hook's expression is defined in the evaluator pool as its controller's, so the pool can
 * give each controller (the author) a fair share of the evaluator processes.
 */
import { expect, it } from 'vitest';
import { NO_TRACING, systemClock } from '../engine/index.ts';
import type { EvaluatorPool } from '../hooks/index.ts';
import type { ExpressionSources } from './expression-sources.ts';
import type { Host } from './host.ts';
import { runnerFor } from './hook-runners.ts';

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
