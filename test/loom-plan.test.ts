/**
 * `loom plan` against the real control plane: a running loom has synced two parents under a
 * controller; a changed manifest of that controller is planned, and the plan names each child that
 * would change and how — while nothing in the cluster changes. The unchanged manifest plans nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { runPlan } from '../src/cli/plan.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, type ParentKind } from './support/test-crd.ts';

const LABEL = 'loom-plan';
const KIND: ParentKind = { plural: 'plannings', kind: 'Planning' };
let clients: TestClients;
let loom: TestLoom;
let namespace: string;
let dir: string;

/** The controller, its ConfigMap carrying `version`. */
const controller = (version: string) => ({
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name: 'planned-controller', labels: { 'loom-test': LABEL } },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
    childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
    hooks: { sync: { jsonata: { expression: `{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-config" }, "data": { "version": "${version}" } }] }` } } },
  },
});

const child = (parent: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${parent}-config` });

async function planOf(version: string, ...flags: string[]) {
  const file = join(dir, `controller-${version}.yaml`);
  await writeFile(file, dump(controller(version)));
  let stdout = '';
  let stderr = '';
  const code = await runPlan(['--controller', file, '--kubeconfig', inject('kubeconfigPath'), ...flags], {
    stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, cwd: dir, environment: {},
  });
  return { code, stderr, reports: load(stdout) as Record<string, { plan?: { child: string; action: string; changes?: string[] }[] }> };
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  dir = await mkdtemp(join(tmpdir(), 'loom-plan-'));
  loom = await startTestLoom(LABEL);
  await clients.apply(controller('1'));
  for (const name of ['first', 'second']) {
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace }, spec: {} });
  }
  await eventually(async () => ((await child('first')) && (await child('second')) ? true : undefined), 'both children');
});

afterAll(async () => {
  await loom?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('loom plan', () => {
  it('names each child a changed controller would update, and writes nothing', async () => {
    const before = await Promise.all(['first', 'second'].map(async (p) => (await child(p))?.metadata.resourceVersion));
    const { code, reports, stderr } = await planOf('2', '--exit-code');
    expect(code).toBe(2);
    expect(stderr).toContain('loom plan: 2 parents, 2 changes');
    for (const parent of ['first', 'second']) {
      const plan = reports[`${KIND.kind} ${namespace}/${parent}`]?.plan;
      expect(plan).toEqual([expect.objectContaining({ child: `ConfigMap ${namespace}/${parent}-config`, action: 'update (InPlace)' })]);
    }
    const after = await Promise.all(['first', 'second'].map(async (p) => (await child(p))?.metadata.resourceVersion));
    expect(after).toEqual(before);
  });

  it('plans nothing for the manifest the cluster runs', async () => {
    const { code, reports, stderr } = await planOf('1', '--exit-code');
    expect(stderr).toContain('loom plan: 2 parents, 0 changes');
    expect(code).toBe(0);
    expect(Object.values(reports).flatMap((r) => r.plan ?? []).every((entry) => entry.action === 'unchanged')).toBe(true);
  });

  it('refuses a controller with a customize hook, as it does not read related objects yet', async () => {
    const file = join(dir, 'customize.yaml');
    const withCustomize = controller('1') as KubeObject & { spec: { hooks: Record<string, unknown> } };
    withCustomize.spec.hooks.customize = { jsonata: { expression: '{ "relatedResources": [] }' } };
    await writeFile(file, dump(withCustomize));
    let stderr = '';
    const code = await runPlan(['--controller', file, '--kubeconfig', inject('kubeconfigPath')], {
      stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) }, cwd: dir, environment: {},
    });
    expect(code).toBe(1);
    expect(stderr).toContain('spec.hooks.customize: loom plan does not read related objects yet');
  });
});
