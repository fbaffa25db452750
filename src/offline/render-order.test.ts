import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { readinessOf, type Readiness } from '../core/index.ts';
import { renderOrder, type RenderOrderInput } from './render-order.ts';
import { answerOf, planDecisions } from './render-plan.ts';
import { RenderError } from './render-error.ts';

const declared = [{ apiVersion: 'v1', kind: 'ConfigMap' }, { apiVersion: 'db.example.com/v1', kind: 'Database' }];
const cm = (name: string, annotations?: Record<string, string>, data?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ...(annotations && { annotations }) }, ...(data && { data }) });
const database = (status?: object): KubeObject =>
  ({ apiVersion: 'db.example.com/v1', kind: 'Database', metadata: { name: 'pg', namespace: 'ns' }, ...(status && { status }) });
const notReady = { conditions: [{ type: 'Ready', status: 'False', message: 'provisioning' }] };
const kstatus = (objects: KubeObject[]): Promise<Readiness[]> => Promise.resolve(objects.map((o) => readinessOf(o)));

/** The input of a render whose `desired` and `observed` are as given, decided as loom's plan decides. */
function input(desired: KubeObject[], observed: KubeObject[] = [], over: Partial<RenderOrderInput> = {}): RenderOrderInput {
  const decisions = planDecisions({ desired, observed, methodFor: () => 'InPlace', applyStrategy: 'server-side-apply' });
  const have = (want: KubeObject) => observed.find((o) => o.kind === want.kind && o.metadata.name === want.metadata.name);
  return {
    desired, observed, decisions, answerOf: (want) => answerOf(want, have(want), undefined, 'server-side-apply'),
    declared, ruleOf: () => undefined, judge: kstatus, reportReadiness: false, ...over,
  };
}

describe('renderOrder', () => {
  it('is absent when no child asks for order and the controller wants no Ready condition', async () => {
    expect(await renderOrder(input([cm('a'), database()]))).toBeUndefined();
  });

  it('foresees what waits for an observed child that is not ready, child by child', async () => {
    const desired = [database(), cm('app', { 'loom.dev/depends-on': 'Database/pg' }), cm('late', { 'loom.dev/wave': '1' })];
    const order = await renderOrder(input(desired, [database(notReady)]));
    const waiting = 'Database ns/pg (InProgress: Database: Ready is False (provisioning))';
    expect(order?.held).toEqual([`ConfigMap ns/app waits for ${waiting}`, `ConfigMap ns/late waits for ${waiting}, ConfigMap ns/app (held)`]);
    expect(order?.readiness).toEqual([
      { child: 'Database ns/pg', wave: 0, readiness: 'InProgress: Database: Ready is False (provisioning)' },
      { child: 'ConfigMap ns/app', wave: 0, dependsOn: ['Database ns/pg'], readiness: 'NotFound: not found', held: true },
      { child: 'ConfigMap ns/late', wave: 1, readiness: 'NotFound: not found', held: true },
    ]);
    expect(order?.report).toMatchObject({ ordered: true, failed: [] });
  });

  it('judges through the judge it is given, as the hook request does (readyWhen)', async () => {
    const desired = [cm('a', { 'loom.dev/wave': '0' }), cm('b', { 'loom.dev/wave': '1' })];
    const judge = (objects: KubeObject[]) => Promise.resolve(objects.map((): Readiness => ({ status: 'InProgress', message: 'readyWhen is false' })));
    const order = await renderOrder(input(desired, [], { judge }));
    expect(order?.held).toEqual(['ConfigMap ns/b waits for ConfigMap ns/a (InProgress: readyWhen is false)']);
  });

  it('foresees no hold when the writes would be ready at once', async () => {
    const desired = [cm('a', { 'loom.dev/wave': '0' }), cm('b', { 'loom.dev/wave': '1' })];
    const order = await renderOrder(input(desired));
    expect(order?.held).toEqual([]);
    expect(order?.readiness.map((line) => line.readiness)).toEqual(['Current: ConfigMap: exists', 'Current: ConfigMap: exists']);
  });

  it('judges a child it updates from what the write would make of it, not as observed', async () => {
    const desired = [cm('settings', { 'loom.dev/wave': '0' }, { version: '2' }), cm('app', { 'loom.dev/wave': '1' })];
    const versionTwo = (objects: KubeObject[]) => Promise.resolve(objects.map((o): Readiness => ((o.data as Record<string, string> | undefined)?.version === '2' ? { status: 'Current', message: '' } : { status: 'InProgress', message: 'version is not 2' })));
    const order = await renderOrder(input(desired, [cm('settings', { 'loom.dev/wave': '0' }, { version: '1' })], { judge: versionTwo }));
    expect(order?.held).toEqual([]);
    expect(order?.readiness[0]?.readiness).toBe('Current');
  });

  it('holds no child that needs no write, as the sync settles it from the start', async () => {
    const app = cm('app', { 'loom.dev/depends-on': 'Database/pg' }, { x: '1' });
    const order = await renderOrder(input([database(), app], [database(notReady), app]));
    expect(order?.held).toEqual([]);
    expect(order?.readiness[1]).toEqual({ child: 'ConfigMap ns/app', wave: 0, dependsOn: ['Database ns/pg'], readiness: 'Current: ConfigMap: exists' });
  });

  it('holds the deletions of lower waves while higher ones still exist', async () => {
    const observed = [cm('first', { 'loom.dev/wave': '0' }), cm('second', { 'loom.dev/wave': '1' })];
    const order = await renderOrder(input([], observed));
    expect(order?.held).toEqual(['deleting ConfigMap ns/first waits for ConfigMap ns/second (to be deleted first)']);
    expect(order?.readiness).toEqual([]);
  });

  it('reports readiness without order when the controller wants a Ready condition', async () => {
    const order = await renderOrder(input([database(), cm('a')], [database(notReady)], { reportReadiness: true }));
    expect(order?.held).toBeUndefined();
    expect(order?.readiness).toEqual([
      { child: 'Database ns/pg', readiness: 'InProgress: Database: Ready is False (provisioning)' }, { child: 'ConfigMap ns/a', readiness: 'Current: ConfigMap: exists' },
    ]);
    expect(order?.report.ordered).toBe(false);
  });

  it('refuses a cycle as the sync would', async () => {
    const desired = [cm('a', { 'loom.dev/depends-on': 'ConfigMap/b' }), cm('b', { 'loom.dev/depends-on': 'ConfigMap/a' })];
    await expect(renderOrder(input(desired))).rejects.toThrow(RenderError);
  });
});
