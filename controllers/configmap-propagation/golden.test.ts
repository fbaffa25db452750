/**
 * Golden cases of the configmap-propagation hooks: each `testdata/*.json` holds a hook request and the
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
const hookOf = (file: string): 'customize' | 'sync' => (file.startsWith('customize') ? 'customize' : 'sync');
const runner = (hook: 'customize' | 'sync'): HookRunner =>
  compileJsonataHook({ expression: controller.spec.hooks[hook].jsonata.expression, hook, timeoutMs: 1_000, clock: systemClock });
const signal = new AbortController().signal;
const sync = async (request: SyncRequest): Promise<SyncResponse> => (await runner('sync').call(request, signal)) as SyncResponse;

describe('configmap-propagation hooks', () => {
  it('has its golden cases', () => {
    expect(goldens).toEqual(['customize.json', 'fresh.json', 'source-changed.json', 'source-missing.json', 'steady.json', 'target-removed.json']);
  });

  it.each(goldens)('answers %s with its golden response', async (file) => {
    const golden = readGolden(file);
    expect(await runner(hookOf(file)).call(golden.request, signal)).toEqual(golden.response);
  });

  it('asks for the same copies whether or not they already exist', async () => {
    const { request } = readGolden('steady.json');
    expect(Object.keys(request.children['ConfigMap.v1'] ?? {})).toHaveLength(2);
    const [withCopies, without] = await Promise.all([sync(request), sync({ ...request, children: { 'ConfigMap.v1': {} } })]);
    expect(withCopies.children).toEqual(without.children);
    expect(withCopies.status).not.toEqual(without.status);
  });

  it('keeps the data of every observed copy in a target namespace while the source is missing', async () => {
    const { request } = readGolden('source-missing.json');
    expect(request.related['ConfigMap.v1']).toEqual({});
    const observed = Object.values(request.children['ConfigMap.v1'] ?? {});
    expect(observed.length).toBeGreaterThan(0);
    const kept = (await sync(request)).children;
    const contentOf = (cm: KubeObject) => ({ at: `${cm.metadata.namespace}/${cm.metadata.name}`, data: cm.data, binaryData: cm.binaryData, labels: cm.metadata.labels });
    expect(kept.map(contentOf)).toEqual(observed.map(contentOf));
  });
});
