/**
 * Golden cases of the tenant sync expression: each `testdata/*.json` holds a hook request and the exact
 * response the expression must return for it. The expression is read from the shipped controller.yaml
 * and compiled by loom's own runner, so these test what `kubectl apply` deploys.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/engine/index.ts';
import { compileJsonataHook, type HookRunner } from '../../src/hooks/index.ts';

const HERE = new URL('./', import.meta.url);

interface Golden {
  request: { children: Record<string, Record<string, unknown>> };
  response: { children: unknown[]; status: unknown };
}

interface SyncController {
  spec: { hooks: { sync: { jsonata: { expression: string } } } };
}

function syncExpression(): string {
  const controller = load(readFileSync(new URL('controller.yaml', HERE), 'utf8')) as SyncController;
  return controller.spec.hooks.sync.jsonata.expression;
}

const readGolden = (file: string): Golden => JSON.parse(readFileSync(new URL(`testdata/${file}`, HERE), 'utf8')) as Golden;
const goldens = readdirSync(new URL('testdata/', HERE)).filter((f) => f.endsWith('.json')).sort();
const sync = (): HookRunner => compileJsonataHook({ expression: syncExpression(), hook: 'sync', timeoutMs: 1_000, clock: systemClock });
const signal = new AbortController().signal;

describe('tenant sync expression', () => {
  it('has its golden cases', () => {
    expect(goldens).toEqual(['fresh.json', 'no-admins.json', 'observed-active.json', 'sanitised-name.json', 'terminating.json']);
  });

  it.each(goldens)('answers %s with its golden response', async (file) => {
    const golden = readGolden(file);
    expect(await sync().call(golden.request, signal)).toEqual(golden.response);
  });

  it('asks for the same children whether or not they already exist', async () => {
    const { request } = readGolden('observed-active.json');
    const observed = Object.values(request.children).reduce((n, byName) => n + Object.keys(byName).length, 0);
    expect(observed).toBe(3);
    const empty = { ...request, children: Object.fromEntries(Object.keys(request.children).map((type) => [type, {}])) };
    const runner = sync();
    const [withChildren, without] = await Promise.all([runner.call(request, signal), runner.call(empty, signal)]);
    expect((withChildren as Golden['response']).children).toEqual((without as Golden['response']).children);
    expect((withChildren as Golden['response']).status).not.toEqual((without as Golden['response']).status);
  });
});
