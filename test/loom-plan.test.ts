/**
 * `loom plan` against the real control plane: a running loom has synced two parents under a
 * controller; a changed manifest of that controller is planned, and the plan names each child that
 * would change and how — while nothing in the cluster changes. The unchanged manifest plans nothing.
 * Writes are judged by server-side dry runs, and a customize hook's related objects come from the
 * cluster.
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

/** The controller: per parent a ConfigMap carrying `version`, and a ResourceQuota of `cpu` (and with `extra`, a second ConfigMap). */
const controller = (version: string, cpu = '1', extra = false) => ({
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name: 'planned-controller', labels: { 'loom-test': LABEL } },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
    childResources: [
      { apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } },
      { apiVersion: 'v1', resource: 'resourcequotas', updateStrategy: { method: 'InPlace' } },
    ],
    hooks: {
      sync: {
        jsonata: {
          expression: `{ "children": [
            { "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-config" }, "data": { "version": "${version}" } },
            { "apiVersion": "v1", "kind": "ResourceQuota", "metadata": { "name": parent.metadata.name & "-quota" }, "spec": { "hard": { "cpu": "${cpu}" } } }${extra ? `,
            { "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-extra" } }` : ''}
          ] }`,
        },
      },
    },
  },
});

const child = (parent: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${parent}-config` });

async function planOf(version: string, cpu: string, ...flags: string[]) {
  return planOfManifest(controller(version, cpu), ...flags);
}

async function planOfManifest(manifest: object, ...flags: string[]) {
  const file = join(dir, `controller-${JSON.stringify(manifest).length}-${flags.join('')}.yaml`);
  await writeFile(file, dump(manifest));
  let stdout = '';
  let stderr = '';
  const code = await runPlan(['--controller', file, '--kubeconfig', inject('kubeconfigPath'), ...flags], {
    stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, cwd: dir, environment: {},
  });
  return { code, stderr, reports: (stdout ? load(stdout) : {}) as Record<string, { plan?: { child: string; action: string; diff?: string[]; refused?: string }[] }> };
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
  await eventually(() => clients.writer.get({ apiVersion: 'v1', kind: 'ResourceQuota', namespace, name: 'second-quota' }), 'the quotas');
});

afterAll(async () => {
  await loom?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('loom plan', () => {
  it('names each child a changed controller would update, and writes nothing', async () => {
    const before = await Promise.all(['first', 'second'].map(async (p) => (await child(p))?.metadata.resourceVersion));
    const { code, reports, stderr } = await planOf('2', '1', '--exit-code');
    expect(code).toBe(2);
    expect(stderr).toContain('loom plan: 2 parents, 2 changes');
    for (const parent of ['first', 'second']) {
      const plan = reports[`${KIND.kind} ${namespace}/${parent}`]?.plan;
      expect(plan).toEqual([
        { child: `ConfigMap ${namespace}/${parent}-config`, action: 'update (InPlace)', diff: ['data.version: "1" → "2"'] },
        { child: `ResourceQuota ${namespace}/${parent}-quota`, action: 'unchanged' },
      ]);
    }
    const after = await Promise.all(['first', 'second'].map(async (p) => (await child(p))?.metadata.resourceVersion));
    expect(after).toEqual(before);
  });

  it('judges by what the API server would store: a quantity it normalises (1000m is 1) is no change', async () => {
    const { code, stderr } = await planOf('1', '1000m', '--exit-code');
    expect(stderr).toContain('loom plan: 2 parents, 0 changes');
    expect(code).toBe(0);
  });

  it('says why the API server would refuse a write, and counts it', async () => {
    const { code, reports } = await planOf('1', 'plenty', '--exit-code');
    expect(code).toBe(2);
    const quota = reports[`${KIND.kind} ${namespace}/first`]?.plan?.find((entry) => entry.child.startsWith('ResourceQuota'));
    expect(quota?.refused).toContain('quantities must match the regular expression');
  });

  it('shows the refusal of a create whose name an object this parent does not own holds, as loom run refuses it', async () => {
    // Held by someone else: no owner, and none of the controller's labels.
    await clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first-extra', namespace }, data: { owner: 'someone else' } });
    for (const strategy of ['server-side-apply', 'dynamic-apply']) {
      const { code, reports } = await planOfManifest(controller('1', '1', true), '--exit-code', '--apply-strategy', strategy);
      expect(code).toBe(2);
      const extra = (parent: string) => reports[`${KIND.kind} ${namespace}/${parent}`]?.plan?.find((entry) => entry.child.endsWith(`${parent}-extra`));
      expect(extra('first')?.action).toBe('create');
      expect(extra('first')?.refused).toContain(`ConfigMap ${namespace}/first-extra already exists and is not this parent's`);
      expect(extra('second')).toEqual({ child: `ConfigMap ${namespace}/second-extra`, action: 'create' });
    }
    const held = await clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'first-extra' });
    expect(held?.data).toEqual({ owner: 'someone else' });
    expect(await clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'second-extra' })).toBeUndefined();
  });

  it('shows an ordered controller\'s waves, readiness (readyWhen on the dry run\'s answer), holds and Ready condition', async () => {
    const base = controller('3', '2');
    const [configMaps, quotas] = base.spec.childResources;
    const ordered = {
      ...base, spec: { ...base.spec, readyCondition: true, childResources: [{ ...configMaps, readyWhen: 'data.version = "2"' }, { ...quotas, wave: 1 }] },
    };
    const { code, reports, stderr } = await planOfManifest(ordered);
    expect(code, stderr).toBe(0);
    const report = reports[`${KIND.kind} ${namespace}/first`] as unknown as { readiness: unknown[]; held: string[]; status: { conditions: unknown[] } };
    const notReady = expect.stringMatching(/^InProgress: .*spec\.childResources\[0\]\.readyWhen is false$/) as unknown;
    expect(report.readiness).toEqual([
      { child: `ConfigMap ${namespace}/first-config`, wave: 0, readiness: notReady },
      { child: `ResourceQuota ${namespace}/first-quota`, wave: 1, readiness: expect.stringMatching(/^Current/) as unknown, held: true },
    ]);
    expect(report.held).toEqual([expect.stringMatching(new RegExp(`^ResourceQuota ${namespace}/first-quota waits for ConfigMap ${namespace}/first-config \\(InProgress: .*readyWhen is false\\)$`))]);
    expect(report.status.conditions).toEqual([{ type: 'Ready', status: 'False', reason: 'ChildrenHeld', message: report.held[0], observedGeneration: 1 }]);
    // The version the readyWhen waits for is ready once written: nothing is held.
    const settled = await planOfManifest({ ...ordered, spec: { ...ordered.spec, hooks: controller('2', '2').spec.hooks } });
    expect((settled.reports[`${KIND.kind} ${namespace}/first`] as unknown as { held: string[] }).held).toEqual([]);
  });

  it('plans nothing for the manifest the cluster runs', async () => {
    const { code, reports, stderr } = await planOf('1', '1', '--exit-code');
    expect(stderr).toContain('loom plan: 2 parents, 0 changes');
    expect(code).toBe(0);
    expect(Object.values(reports).flatMap((r) => r.plan ?? []).every((entry) => entry.action === 'unchanged')).toBe(true);
  });

  it('reads a customize hook\'s related objects from the cluster', async () => {
    await clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { version: '3' } });
    const file = join(dir, 'customize.yaml');
    const withCustomize = controller('1') as KubeObject & { spec: { hooks: Record<string, unknown> } };
    withCustomize.spec.hooks.customize = { jsonata: { expression: `{ "relatedResources": [{ "apiVersion": "v1", "resource": "configmaps", "namespace": "${namespace}", "names": ["settings"] }] }` } };
    withCustomize.spec.hooks.sync = {
      jsonata: { expression: '{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-config" }, "data": { "version": $child(related, "ConfigMap.v1", "settings").data.version } }, { "apiVersion": "v1", "kind": "ResourceQuota", "metadata": { "name": parent.metadata.name & "-quota" }, "spec": { "hard": { "cpu": "1" } } }] }' },
    };
    await writeFile(file, dump(withCustomize));
    let stdout = '';
    const code = await runPlan(['--controller', file, '--kubeconfig', inject('kubeconfigPath'), '--exit-code'], {
      stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => true }, cwd: dir, environment: {},
    });
    expect(code).toBe(2);
    const report = (load(stdout) as Record<string, { related?: string[]; plan?: { child: string; diff?: string[] }[] }>)[`${KIND.kind} ${namespace}/first`];
    expect(report?.related).toEqual([`ConfigMap ${namespace}/settings`]);
    expect(report?.plan?.find((entry) => entry.child.endsWith('first-config'))?.diff).toEqual(['data.version: "1" → "3"']);
  });
});
