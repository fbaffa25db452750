/**
 * Golden tests of the namespace-defaults sync expression, exactly as shipped in `controller.yaml`:
 * each `testdata/*.json` holds a webhook request and the response the expression must give for it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/engine/index.ts';
import { compileJsonataHook, type HookRunner } from '../../src/hooks/index.ts';

interface Golden {
  request: { children: Record<string, Record<string, unknown>> };
  response: unknown;
}

const here = new URL('./', import.meta.url);
const testdata = new URL('testdata/', here);

function shippedExpression(): string {
  const manifest = load(readFileSync(new URL('controller.yaml', here), 'utf8')) as { spec: { hooks: { sync: { jsonata: { expression: string } } } } };
  return manifest.spec.hooks.sync.jsonata.expression;
}

const readGolden = (file: string): Golden => JSON.parse(readFileSync(new URL(file, testdata), 'utf8')) as Golden;
const files = readdirSync(testdata).filter((f) => f.endsWith('.json')).sort();
const sync = (): HookRunner => compileJsonataHook({ expression: shippedExpression(), hook: 'sync', timeoutMs: 1_000, clock: systemClock });

describe('namespace-defaults sync expression', () => {
  it('has golden cases', () => {
    expect(files).toEqual(['defaults.json', 'observed-children.json', 'partial-annotations.json', 'quota-annotations.json']);
  });

  it.each(files)('answers %s', async (file) => {
    const golden = readGolden(file);
    expect(await sync().call(golden.request, new AbortController().signal)).toEqual(golden.response);
  });

  it('gives the same answer whether or not the children already exist', async () => {
    const { request } = readGolden('observed-children.json');
    const observed = Object.values(request.children).reduce((n, byName) => n + Object.keys(byName).length, 0);
    expect(observed).toBe(3);
    const empty = { ...request, children: Object.fromEntries(Object.keys(request.children).map((type) => [type, {}])) };
    const runner = sync();
    const signal = new AbortController().signal;
    expect(await runner.call(request, signal)).toEqual(await runner.call(empty, signal));
  });
});
