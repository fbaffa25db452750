/**
 * `loom render` shows the order a sync would write in (docs/ordering-and-readiness.md, "Offline"): each
 * desired child's wave and readiness, judged by the request's judge (`readyWhen` included), what is held
 * and what for, deletions held in reverse, and the Ready condition the sync would write.
 */
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { caseDir, runWith } from './render.test-support.ts';

const dir = caseDir('ordered');
const args = ['--controller', 'controller.yaml', '--parent', 'parent.yaml'];
const readyWhen = (verdict: boolean) => `controller.yaml: [1] spec.childResources[0].readyWhen is ${verdict}`;

interface Report {
  status: { conditions: Record<string, unknown>[] };
  plan?: { child: string; action: string }[];
  readiness: Record<string, unknown>[];
  held: string[];
}

describe('loom render: order, holds and readiness', () => {
  it('holds what waits for a database its readyWhen does not find ready, and says so in the Ready condition', async () => {
    const result = await runWith(args, { dir });
    expect(result.code, result.stderr).toBe(0);
    const report = load(result.stdout) as Report;
    const waitsForDb = `Database default/shop-db (InProgress: ${readyWhen(false)})`;
    expect(report.readiness).toEqual([
      { child: 'Database default/shop-db', wave: 0, readiness: `InProgress: ${readyWhen(false)}` },
      { child: 'ConfigMap default/shop-config', wave: 0, dependsOn: ['Database default/shop-db'], readiness: 'NotFound: not found', held: true },
      { child: 'Deployment default/shop', wave: 1, readiness: 'NotFound: not found', held: true },
    ]);
    expect(report.held).toEqual([
      `ConfigMap default/shop-config waits for ${waitsForDb}`,
      `Deployment default/shop waits for ${waitsForDb}, ConfigMap default/shop-config (held)`,
    ]);
    expect(report.status.conditions).toEqual([{
      type: 'Ready', status: 'False', reason: 'ChildrenHeld', message: report.held.join('; '), observedGeneration: 2,
    }]);
    expect(result.stderr).toContain('note: status.conditions: the Ready condition has no lastTransitionTime: loom sets it to the time of its status write\n');
  });

  it('writes every wave once the observed database is ready, keeps the Ready time the parent has, and holds deletions in reverse', async () => {
    const result = await runWith([...args, '--observed', 'observed.yaml'], {
      dir,
      edit: {
        'parent.yaml': (text) => `${text}status:\n  conditions:\n    - { type: Ready, status: "False", reason: ChildrenHeld, message: old, lastTransitionTime: "2026-11-27T06:00:00Z" }\n`,
        'observed.yaml': (text) => `${text}---\n${text.slice(text.indexOf('apiVersion: v1\n')).replaceAll('shop-legacy', 'shop-cache').replace('"2"', '"3"').replace('0000000000b2', '0000000000b3')}`,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    const report = load(result.stdout) as Report;
    expect(report.plan?.map((e) => `${e.child}: ${e.action}`)).toEqual([
      'ConfigMap default/shop-cache: delete', 'ConfigMap default/shop-legacy: delete', 'Database default/shop-db: unchanged', 'ConfigMap default/shop-config: create', 'Deployment default/shop: create',
    ]);
    expect(report.readiness.map((line) => line.readiness)).toEqual([`Current: ${readyWhen(true)}`, 'Current: ConfigMap: exists', 'InProgress: Deployment: 0 of 1 replicas created']);
    expect(report.held).toEqual(['deleting ConfigMap default/shop-legacy waits for ConfigMap default/shop-cache (to be deleted first)']);
    expect(report.status.conditions).toEqual([{
      type: 'Ready', status: 'False', reason: 'ChildrenHeld', observedGeneration: 2, lastTransitionTime: '2026-11-27T06:00:00Z',
      message: 'deleting ConfigMap default/shop-legacy waits for ConfigMap default/shop-cache (to be deleted first)',
    }]);
    expect(result.stderr).not.toContain('lastTransitionTime');
  });

  it('refuses an order the sync would refuse', async () => {
    const result = await runWith(args, { dir, edit: { 'controller.yaml': (text) => text.replace('"Database/" & $name & "-db"', '"Database/nowhere"') } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the children's order is refused:");
  });
});
