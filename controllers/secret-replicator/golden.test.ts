/**
 * Golden cases of the secret-replicator hooks: each `testdata/*.json` holds a hook request and the
 * exact response the expression must return for it — `customize*.json` for the customize hook, the
 * others for sync. The expressions are read from the shipped controller.yaml and compiled by loom's
 * own runner, so these test what `kubectl apply` deploys.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/index.ts';
import { systemClock } from '../../src/engine/index.ts';
import { compileJsonataHook, type HookRunner } from '../../src/hooks/index.ts';

const HERE = new URL('./', import.meta.url);

interface SyncRequest {
  children: Record<string, Record<string, KubeObject>>;
  related: Record<string, Record<string, KubeObject>>;
}

interface SyncResponse {
  children: KubeObject[];
  status: Record<string, unknown>;
}

interface Golden {
  request: SyncRequest;
  response: SyncResponse;
}

interface Controller {
  spec: { hooks: Record<'customize' | 'sync', { jsonata: { expression: string } }> };
}

const controller = load(readFileSync(new URL('controller.yaml', HERE), 'utf8')) as Controller;
const readGolden = (file: string): Golden => JSON.parse(readFileSync(new URL(`testdata/${file}`, HERE), 'utf8')) as Golden;
const goldens = readdirSync(new URL('testdata/', HERE)).filter((f) => f.endsWith('.json')).sort();
const syncGoldens = goldens.filter((f) => !f.startsWith('customize'));
const hookOf = (file: string): 'customize' | 'sync' => (file.startsWith('customize') ? 'customize' : 'sync');
const runner = (hook: 'customize' | 'sync'): HookRunner =>
  compileJsonataHook({ expression: controller.spec.hooks[hook].jsonata.expression, hook, timeoutMs: 1_000, clock: systemClock });
const signal = new AbortController().signal;
const sync = async (request: SyncRequest): Promise<SyncResponse> => (await runner('sync').call(request, signal)) as SyncResponse;

describe('secret-replicator hooks', () => {
  it('has its golden cases', () => {
    expect(goldens).toEqual([
      'customize.json', 'fresh.json', 'namespace-unselected.json', 'retyped.json', 'source-changed.json', 'source-missing.json', 'steady.json',
    ]);
  });

  it.each(goldens)('answers %s with its golden response', async (file) => {
    const golden = readGolden(file);
    expect(await runner(hookOf(file)).call(golden.request, signal)).toEqual(golden.response);
  });

  it('asks for the same copies whether or not they already exist', async () => {
    const { request } = readGolden('steady.json');
    expect(Object.keys(request.children['Secret.v1'] ?? {})).toHaveLength(2);
    const [withCopies, without] = await Promise.all([sync(request), sync({ ...request, children: { 'Secret.v1': {} } })]);
    expect(withCopies.children).toEqual(without.children);
    expect(withCopies.status).not.toEqual(without.status);
  });

  it('keeps the type and data of every observed copy in a selected namespace while the source is missing', async () => {
    const { request } = readGolden('source-missing.json');
    expect(request.related['Secret.v1']).toEqual({});
    const observed = Object.values(request.children['Secret.v1'] ?? {});
    expect(observed.length).toBeGreaterThan(0);
    const kept = (await sync(request)).children;
    const contentOf = (s: KubeObject) => ({ at: `${s.metadata.namespace}/${s.metadata.name}`, type: s.type, data: s.data, labels: s.metadata.labels });
    expect(kept.map(contentOf)).toEqual(observed.map(contentOf));
  });

  it.each(syncGoldens)('puts no secret value into the status of %s', async (file) => {
    const { request } = readGolden(file);
    const secrets = [...Object.values(request.related['Secret.v1'] ?? {}), ...Object.values(request.children['Secret.v1'] ?? {})];
    const values = secrets.flatMap((s) => Object.values((s.data ?? {}) as Record<string, string>));
    expect(values.length).toBeGreaterThan(0);
    const status = JSON.stringify((await sync(request)).status);
    for (const value of values) expect(status).not.toContain(value);
  });
});
