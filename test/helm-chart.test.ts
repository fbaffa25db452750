/**
 * charts/loom on the real control plane, as a cluster would run it: the chart is `helm install`ed
 * (helm built from Go modules; its Deployment never gets a pod, as there is no kubelet here), a
 * token is minted for the chart's ServiceAccount with the TokenRequest API, and loom runs with exactly
 * the Deployment's arguments under that identity through the in-cluster path: no kubeconfig,
 * `KUBERNETES_SERVICE_HOST`/`PORT` and the token, CA and namespace under
 * /var/run/secrets/kubernetes.io/serviceaccount — put there in a mount namespace of loom's own
 * (`unshare`), so loom reads the real path and the machine's is untouched.
 *
 * Both RBAC modes converge a controller calling the hello example's hook and a JSONata controller
 * whose expression is a ConfigMap in the release namespace (the chart's default for
 * --reference-namespaces); with `scoped`, a child type outside the grants is reported naming the
 * missing permission.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { freeLoopbackPort } from '../src/devcluster/ports.ts';
import { createRestClient } from '../src/kube/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, pointedAt, startExampleHook, type ExampleHook } from './support/example-hook.ts';
import { deploymentArgs, helmBinary, installRelease, uninstallRelease } from './support/helm.ts';
import { readyCondition, testClients, type TestClients } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const KIND = TEST_PARENT_KINDS.chart;
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const REPO = new URL('..', import.meta.url).pathname;

let helm: string;
let clients: TestClients;
let parents: string;
let hook: ExampleHook | undefined;
const stops: (() => Promise<void>)[] = [];

const parentResource = (hook: string) => ({ apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { hook } } });
const configMap = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: parents, name });

/** A token for the ServiceAccount, from the TokenRequest API, as the kubelet would mount one. */
async function tokenFor(namespace: string, serviceAccount: string): Promise<string> {
  const client = createRestClient({ kubeConfig: testKubeConfig() });
  const path = `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`;
  const answer = await client.request<{ status: { token: string } }>({
    method: 'POST', path, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return answer.status.token;
}

/**
 * Runs `loom <args>` as a Pod of the ServiceAccount would: in a mount namespace where a tmpfs over
 * /run holds the service-account files, with the in-cluster environment and no kubeconfig anywhere.
 */
async function runInCluster(args: string[], files: Record<string, string>): Promise<{ stop(): Promise<void>; logs(): string }> {
  const staged = await mkdtemp(join(tmpdir(), 'loom-chart-sa-'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(staged, name), content);
  const server = new URL(testKubeConfig().getCurrentCluster()!.server);
  const script = `run=$(readlink -f /var/run) && mount -t tmpfs none "$run" && mkdir -p ${SERVICE_ACCOUNT_DIR} && cp "$STAGED"/* ${SERVICE_ACCOUNT_DIR}/ && exec "$@"`;
  const env = { PATH: process.env.PATH ?? '', HOME: staged, STAGED: staged, KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port };
  // Root may mount in a mount namespace of its own; anyone else needs a user namespace around it.
  const namespaces = process.getuid?.() === 0 ? ['--mount'] : ['--mount', '--map-root-user'];
  const child = spawn('unshare', [...namespaces, 'sh', '-c', script, 'sh', process.execPath, `${REPO}src/cli/main.ts`, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let logs = '';
  child.stderr.on('data', (chunk: Buffer) => (logs = (logs + chunk.toString()).slice(-8_000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    logs: () => logs,
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      await exited;
      await rm(staged, { recursive: true, force: true });
    },
  };
}

interface Install {
  namespace: string;
  loom: { stop(): Promise<void>; logs(): string };
}

/** Renders the chart, applies it but the Deployment, and runs loom with the Deployment's arguments. */
async function installChart(mode: 'scoped' | 'cluster', values: object): Promise<Install> {
  const namespace = await createTestNamespace(testKubeConfig(), `loom-chart-${mode}`);
  const target = { release: `chart-${mode}`, namespace, kubeconfig: inject('kubeconfigPath') };
  const objects = await installRelease(helm, target, values);
  stops.push(() => uninstallRelease(helm, target));
  const serviceAccount = objects.find((o) => o.kind === 'ServiceAccount')!.metadata.name!;
  const ca = Buffer.from(testKubeConfig().getCurrentCluster()!.caData!, 'base64').toString('utf8');
  const loom = await runInCluster(deploymentArgs(objects), { token: await tokenFor(namespace, serviceAccount), 'ca.crt': ca, namespace });
  stops.push(() => loom.stop());
  return { namespace, loom };
}

/** The controllers of one mode, labelled for its loom: hello's webhook and a JSONata expression ConfigMap. */
async function applyControllers(mode: string, releaseNamespace: string): Promise<void> {
  const labels = { 'loom-test': `chart-${mode}` };
  const [hello] = await exampleManifests('hello', 'controller.yaml');
  const webhook = pointedAt(hello!, hook!.url, labels);
  await clients.apply({ ...webhook, metadata: { ...webhook.metadata, name: `chart-${mode}-webhook` }, spec: { ...(webhook.spec as Record<string, unknown>), parentResource: parentResource(`webhook-${mode}`) } });
  await clients.apply({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'expression', namespace: releaseNamespace },
    data: { sync: '{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-evaluated" }, "data": { "sum": $string(1 + 2) } }] }' },
  });
  await clients.apply(jsonataController(`chart-${mode}-jsonata`, labels, {
    hookLabel: `jsonata-${mode}`, jsonata: { configMapRef: { namespace: releaseNamespace, name: 'expression', key: 'sync' } }, childResource: 'configmaps',
  }));
}

interface JsonataControllerSpec {
  /** The `hook` label of its parents. */
  hookLabel: string;
  jsonata: object;
  childResource: string;
}

function jsonataController(name: string, labels: Record<string, string>, { hookLabel, jsonata, childResource }: JsonataControllerSpec): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name, labels },
    spec: { generateSelector: true, parentResource: parentResource(hookLabel), childResources: [{ apiVersion: 'v1', resource: childResource }], hooks: { sync: { jsonata } } },
  };
}

const parent = (name: string, hookLabel: string): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace: parents, labels: { hook: hookLabel } }, spec: { who: 'chart' } });

/** Both controllers of `mode` converge their parent. */
async function expectConverged(mode: string): Promise<void> {
  await clients.apply(parent(`webhook-${mode}`, `webhook-${mode}`));
  await clients.apply(parent(`jsonata-${mode}`, `jsonata-${mode}`));
  expect((await eventually(() => configMap(`webhook-${mode}-greeting`), `the ${mode} webhook child`, 60_000)).data).toEqual({ greeting: 'Hello, chart!' });
  expect((await eventually(() => configMap(`jsonata-${mode}-evaluated`), `the ${mode} JSONata child`, 60_000)).data).toEqual({ sum: '3' });
}

beforeAll(async () => {
  helm = await helmBinary();
  clients = await testClients();
  await createParentCrd(clients, KIND);
  parents = await createTestNamespace(testKubeConfig(), 'chart-parents');
  hook = await startExampleHook('hello');
}, 300_000);

afterAll(async () => {
  // Last started, first stopped: each loom before the release whose identity it runs under.
  for (const stop of stops.reverse()) await stop();
  await hook?.stop();
});

describe('charts/loom with rbac.mode scoped', () => {
  let install: Install;

  beforeAll(async () => {
    install = await installChart('scoped', {
      rbac: {
        mode: 'scoped',
        scoped: { parents: [{ apiGroup: TEST_GROUP, resources: [KIND.plural] }], children: [{ apiGroup: '', resources: ['configmaps'] }], configMaps: ['expression'] },
      },
      runFlags: { 'target-label-selector': 'loom-test=chart-scoped', 'metrics-address': '0' },
      probes: { port: await freeLoopbackPort() },
    });
    await applyControllers('scoped', install.namespace);
  }, 120_000);

  it('converges a webhook and a JSONata controller with exactly the granted permissions', async () => {
    await expectConverged('scoped');
  });

  it('names the missing permission when a controller\'s child type is not granted', async () => {
    const labels = { 'loom-test': 'chart-scoped' };
    const expression = '{ "children": [{ "apiVersion": "v1", "kind": "Secret", "metadata": { "name": parent.metadata.name & "-secret" } }] }';
    await clients.apply(jsonataController('chart-scoped-secrets', labels, { hookLabel: 'secret-scoped', jsonata: { expression }, childResource: 'secrets' }));
    await clients.apply(parent('secret-scoped', 'secret-scoped'));
    const ready = await eventually(async () => {
      const condition = await readyCondition(clients, 'chart-scoped-secrets');
      return condition?.status === 'False' ? condition : undefined;
    }, 'the controller to report what it may not do', 60_000);
    expect(ready.message, install.loom.logs()).toContain('loom may not list and watch secrets.v1');
    expect(ready.message).toContain(`User "system:serviceaccount:${install.namespace}:chart-scoped-loom" cannot list resource "secrets" in API group "" at the cluster scope`);
  });
});

describe('charts/loom with rbac.mode cluster', () => {
  beforeAll(async () => {
    const install = await installChart('cluster', {
      runFlags: { 'target-label-selector': 'loom-test=chart-cluster', 'metrics-address': '0' },
      probes: { port: await freeLoopbackPort() },
    });
    await applyControllers('cluster', install.namespace);
  }, 120_000);

  it('converges a webhook and a JSONata controller', async () => {
    await expectConverged('cluster');
  });
});
