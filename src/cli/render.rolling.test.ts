/**
 * `loom render` plans a rolling update as loom's rollout does (it runs the same rollout code over its
 * files): with the old revision among `--observed`, one child at a time moves to the new spec, the
 * revisions to write are listed, and the parent's `Updated` condition says the rollout is in progress.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dump, load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { revisionSet } from '../core/index.ts';
import { runWith } from './render.test-support.ts';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'rolls.test.example' },
  spec: { group: 'test.example', scope: 'Namespaced', names: { plural: 'rolls', kind: 'Roll' }, versions: [{ name: 'v1', served: true, storage: true }] },
};
const CONTROLLER = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'roll-controller' },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: 'test.example/v1', resource: 'rolls' },
    childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'RollingInPlace' } }],
    hooks: {
      sync: {
        jsonata: {
          expression: '{ "children": ["a", "b"].{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": $$.parent.metadata.name & "-" & $ }, "data": { "version": $$.parent.spec.version } } }',
        },
      },
    },
  },
};
const parentAt = (version: string, generation: number): KubeObject => ({
  apiVersion: 'test.example/v1', kind: 'Roll', metadata: { name: 'roll', namespace: 'ns', uid: 'uid-roll', generation }, spec: { version },
});
const childAt = (name: string, version: string): KubeObject => ({
  apiVersion: 'v1', kind: 'ConfigMap',
  metadata: {
    name, namespace: 'ns', labels: { 'controller-uid': 'uid-roll' },
    ownerReferences: [{ apiVersion: 'test.example/v1', kind: 'Roll', name: 'roll', uid: 'uid-roll', controller: true, blockOwnerDeletion: true }],
  },
  data: { version },
});

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loom-render-rolling-'));
  // The revision loom wrote for version 1, owning both children.
  const old = revisionSet({ parent: parentAt('1', 1), revisions: [], parentResource: { group: 'test.example', resource: 'rolls' }, fieldPaths: ['spec'], generateSelector: true });
  const revision = { ...old.latest.revision, children: [{ apiGroup: '', kind: 'ConfigMap', names: ['roll-a', 'roll-b'] }] };
  await writeFile(join(dir, 'controller.yaml'), `${dump(CRD)}---\n${dump(CONTROLLER)}`);
  await writeFile(join(dir, 'parent.yaml'), dump(parentAt('2', 2)));
  await writeFile(join(dir, 'observed.yaml'), [childAt('roll-a', '1'), childAt('roll-b', '1'), revision].map((o) => dump(o)).join('---\n'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loom render of a rolling controller', () => {
  it('moves one child to the new spec, lists the revision writes and reports the rollout in progress', async () => {
    const run = await runWith(['--controller', 'controller.yaml', '--parent', 'parent.yaml', '--observed', 'observed.yaml'], { dir: pathToFileURL(`${dir}/`) });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = load(run.stdout) as { plan: { child: string; action: string }[]; revisions: string[]; status: { conditions: { type: string; status: string; reason: string }[] }; children: KubeObject[] };
    const changed = report.plan.filter((entry) => entry.action !== 'unchanged');
    expect(changed).toHaveLength(1);
    expect(report.children.map((c) => (c.data as { version: string }).version).sort()).toEqual(['1', '2']);
    expect(report.revisions).toEqual([expect.stringMatching(/^create rolls\.test\.example-/), expect.stringMatching(/^update rolls\.test\.example-/)]);
    expect(report.status.conditions).toContainEqual(expect.objectContaining({ type: 'Updated', status: 'False' }));
  });
});
