/**
 * Golden cases of the web-app sync expression: each `testdata/*.json` holds a hook request and the
 * exact response the expression must return for it. The expression is read from the shipped
 * controller.yaml and compiled by loom's own runner, so these test what `kubectl apply` deploys.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/engine/index.ts';
import { compileJsonataHook } from '../../src/hooks/index.ts';

const HERE = new URL('./', import.meta.url);

interface Golden {
  request: unknown;
  response: unknown;
}

interface SyncController {
  spec: { hooks: { sync: { jsonata: { expression: string } } } };
}

function syncExpression(): string {
  const controller = load(readFileSync(new URL('controller.yaml', HERE), 'utf8')) as SyncController;
  return controller.spec.hooks.sync.jsonata.expression;
}

const goldens = readdirSync(new URL('testdata/', HERE)).filter((f) => f.endsWith('.json')).sort();

describe('web-app sync expression', () => {
  const runner = compileJsonataHook({ expression: syncExpression(), hook: 'sync', timeoutMs: 1_000, clock: systemClock });

  it('has its golden cases', () => {
    expect(goldens).toEqual(['fresh.json', 'observed-ready.json', 'observed-rolling.json', 'single-replica.json']);
  });

  it.each(goldens)('answers %s with its golden response', async (file) => {
    const golden = JSON.parse(readFileSync(new URL(`testdata/${file}`, HERE), 'utf8')) as Golden;
    const response = await runner.call(golden.request, new AbortController().signal);
    expect(response).toEqual(golden.response);
  });
});
