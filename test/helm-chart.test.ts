/**
 * charts/loom on the real control plane, as a cluster would run it: the chart is `helm install`ed
 * (helm built from Go modules; its Deployment never gets a pod, as there is no kubelet here), a
 * token is minted for the chart's ServiceAccount with the TokenRequest API, and loom runs with exactly
 * the Deployment's arguments (parsed as `loom run` parses them) under that identity through the
 * in-cluster path: no kubeconfig, `KUBERNETES_SERVICE_HOST`/`PORT`, and a temporary service-account
 * directory holding the token, the CA and the namespace, as the kubelet mounts them.
 *
 * Both RBAC modes converge the hello example's controller (its hook, with webhook credentials in a
 * Secret of the release namespace, which `scoped` grants by name) and the shelf's JSONata
 * configmap-propagation controller (cluster-scoped parents, related objects, children in another
 * namespace). Each mode's loom writes under a field manager of its own, and the tests check the
 * children carry it: they were written by the chart's loom and no other host on the shared plane.
 * With `scoped` (and two replicas, so loom shares the parents out through Leases in the release
 * namespace, and holds every bucket while it runs alone), a child type outside
 * the grants is reported naming the missing permission, both when loom may not list it and when it may
 * read but not write it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { parseGoFlags } from '../src/cli/go-flags.ts';
import { RUN_FLAG_SPEC, runConfig } from '../src/cli/run-config.ts';
import { freeLoopbackPort } from '../src/devcluster/ports.ts';
import { createRestClient } from '../src/kube/index.ts';
import { runLoom, type LoomConfig } from '../src/main.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, pointedAt, startExampleHook, type ExampleHook } from './support/example-hook.ts';
import { deploymentArgs, helmBinary, installRelease, uninstallRelease } from './support/helm.ts';
import { readyCondition, testClients, type TestClients } from './support/loom.ts';
import { shelfManifest, syncErrorMessages } from './support/shelf.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';
import { whenSplit } from './support/shard-leases.ts';

const KIND = TEST_PARENT_KINDS.chart;
const PROPAGATIONS = { apiVersion: 'config.loom.dev/v1', kind: 'ConfigMapPropagation' };

let helm: string;
let clients: TestClients;
let parents: string;
let hook: ExampleHook | undefined;
const propagations: string[] = [];
const stops: (() => Promise<void>)[] = [];

const configMap = (namespace: string, name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const managers = (obj: KubeObject) => ((obj.metadata as { managedFields?: { manager: string }[] }).managedFields ?? []).map((f) => f.manager);

/** A token for the ServiceAccount, from the TokenRequest API, as the kubelet would mount one. */
async function tokenFor(namespace: string, serviceAccount: string): Promise<string> {
  const client = createRestClient({ kubeConfig: testKubeConfig() });
  const path = `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`;
  const answer = await client.request<{ status: { token: string } }>({
    method: 'POST', path, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return answer.status.token;
}

/** A loom running as a Pod of the chart would. */
interface InClusterLoom {
  stop(): Promise<void>;
  /** The last few KiB of its logs, for failure messages. */
  logs(): string;
}

/**
 * Runs `loom <args>` (the container's arguments) in this process as a Pod of the ServiceAccount would:
 * the flags parsed and turned into a configuration exactly as the CLI does, the kubeconfig found
 * through the in-cluster environment and a service-account directory holding `files`.
 */
async function runInCluster(args: readonly string[], files: { token: string; 'ca.crt': string; namespace: string }): Promise<InClusterLoom> {
  const [command, ...flags] = args;
  const { values, positionals } = parseGoFlags(flags, RUN_FLAG_SPEC);
  if (command !== 'run' || positionals.length > 0) throw new Error(`the chart's container runs "${args.join(' ')}", not loom run and flags`);
  const serviceAccountDir = await mkdtemp(join(tmpdir(), 'loom-chart-sa-'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(serviceAccountDir, name), content);
  const server = new URL(testKubeConfig().getCurrentCluster()!.server);
  const environment = { serviceHost: server.hostname, servicePort: server.port };
  const config: LoomConfig = { ...runConfig(values, { identity: 'chart-test', podNamespace: files.namespace }, environment), serviceAccountDir };
  let logs = '';
  const logger = pino({ level: 'info' }, { write: (line: string) => void (logs = (logs + line).slice(-8_000)) });
  const stop = new AbortController();
  const running = await runLoom({ config, logger, signal: stop.signal });
  return {
    logs: () => logs,
    async stop() {
      stop.abort();
      await running.done;
      await rm(serviceAccountDir, { recursive: true, force: true });
    },
  };
}

interface Install {
  namespace: string;
  /** The field manager of this install's loom (`runFlags.apply-strategy-ssa-field-manager`). */
  fieldManager: string;
  loom: InClusterLoom;
}

/** Installs the chart with `values` (plus this file's run flags) and runs loom as its Deployment would. */
async function installChart(mode: 'scoped' | 'cluster', values: object): Promise<Install> {
  const namespace = await createTestNamespace(testKubeConfig(), `loom-chart-${mode}`);
  const fieldManager = `loom-chart-${mode}`;
  const runFlags = { 'target-label-selector': `loom-test=chart-${mode}`, 'metrics-address': '0', 'apply-strategy-ssa-field-manager': fieldManager };
  const target = { release: `chart-${mode}`, namespace, kubeconfig: inject('kubeconfigPath') };
  const objects = await installRelease(helm, target, { ...values, runFlags, probes: { port: await freeLoopbackPort() } });
  stops.push(() => uninstallRelease(helm, target));
  const serviceAccount = objects.find((o) => o.kind === 'ServiceAccount')!.metadata.name!;
  const ca = Buffer.from(testKubeConfig().getCurrentCluster()!.caData!, 'base64').toString('utf8');
  const loom = await runInCluster(deploymentArgs(objects), { token: await tokenFor(namespace, serviceAccount), 'ca.crt': ca, namespace });
  stops.push(() => loom.stop());
  return { namespace, fieldManager, loom };
}

const parentResource = (hookLabel: string) => ({ apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { hook: hookLabel } } });
const parent = (name: string, hookLabel: string): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace: parents, labels: { hook: hookLabel } }, spec: { who: 'chart' } });

/** The hello example's controller, for `mode`'s parents, calling the hook with a bearer token from a Secret. */
async function applyHelloController(mode: string, releaseNamespace: string): Promise<void> {
  await clients.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hello-token', namespace: releaseNamespace }, stringData: { token: 'not-checked' } });
  const [hello] = await exampleManifests('hello', 'controller.yaml');
  const controller = pointedAt(hello!, hook!.url, { 'loom-test': `chart-${mode}` });
  const spec = controller.spec as { hooks: { sync: { webhook: Record<string, unknown> } } };
  spec.hooks.sync.webhook.authorization = { type: 'Bearer', secretRef: { namespace: releaseNamespace, name: 'hello-token', key: 'token' } };
  await clients.apply({ ...controller, metadata: { ...controller.metadata, name: `chart-${mode}-hello` }, spec: { ...spec, parentResource: parentResource(`hello-${mode}`) } });
}

/** The shelf's configmap-propagation controller as shipped but for its name, label and parent selector. */
async function applyPropagationController(mode: string): Promise<void> {
  await clients.apply(await shelfManifest('configmap-propagation', 'crd.yaml'));
  const shipped = await shelfManifest('configmap-propagation', 'controller.yaml');
  const spec = shipped.spec as { parentResource: Record<string, unknown> };
  await clients.apply({
    ...shipped, metadata: { name: `chart-${mode}-configmap-propagation`, labels: { 'loom-test': `chart-${mode}` } },
    spec: { ...spec, parentResource: { ...spec.parentResource, labelSelector: { matchLabels: { 'loom-chart': mode } } } },
  });
}

/** Both controllers of `mode` converge their parents, and the children are the chart's loom's writes. */
async function expectConverged(mode: string, install: Install): Promise<void> {
  await clients.apply(parent(`hello-${mode}`, `hello-${mode}`));
  const greeting = await eventually(() => configMap(parents, `hello-${mode}-greeting`), `the ${mode} hello child`, 60_000);
  expect(greeting.data, install.loom.logs()).toEqual({ greeting: 'Hello, chart!' });
  expect(managers(greeting)).toContain(install.fieldManager);

  const example = await shelfManifest('configmap-propagation', 'propagation.yaml');
  const name = `${parents}-${mode}`;
  propagations.push(name);
  await clients.apply({
    ...example, metadata: { name, labels: { 'loom-chart': mode } },
    spec: { source: { namespace: parents, name: 'settings' }, targetNamespaces: [install.namespace] },
  });
  const copy = await eventually(() => configMap(install.namespace, 'settings'), `the ${mode} propagated copy`, 60_000);
  expect(copy.data, install.loom.logs()).toEqual({ color: 'blue' });
  expect(managers(copy)).toContain(install.fieldManager);
}

beforeAll(async () => {
  helm = await helmBinary();
  clients = await testClients();
  await createParentCrd(clients, KIND);
  parents = await createTestNamespace(testKubeConfig(), 'chart-parents');
  await clients.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: parents }, data: { color: 'blue' } });
  hook = await startExampleHook('hello');
}, 300_000);

afterAll(async () => {
  // Last started, first stopped: each loom before the release whose identity it runs under.
  for (const stop of stops.reverse()) await stop();
  // Cluster-scoped: they outlive the namespaces.
  for (const name of propagations) await clients.writer.delete({ ...PROPAGATIONS, name });
  await hook?.stop();
});

describe('charts/loom with rbac.mode scoped', () => {
  let install: Install;
  const labels = { 'loom-test': 'chart-scoped' };

  /** A JSONata controller of ChartParents labelled `hook: <hookLabel>` whose one child is a `kind`. */
  const oneChildController = (name: string, hookLabel: string, resource: string, kind: string): KubeObject => ({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name, labels },
    spec: {
      generateSelector: true, parentResource: parentResource(hookLabel), childResources: [{ apiVersion: 'v1', resource }],
      hooks: { sync: { jsonata: { expression: `{ "children": [{ "apiVersion": "v1", "kind": "${kind}", "metadata": { "name": parent.metadata.name & "-child" } }] }` } } },
    },
  });

  beforeAll(async () => {
    install = await installChart('scoped', {
      // Two replicas: the chart turns sharding on, through Leases only the Role in the release namespace grants.
      replicas: 2,
      rbac: {
        mode: 'scoped',
        scoped: {
          // Exactly what the two controllers need: their parents, ConfigMap children (the propagation's
          // related source is a ConfigMap too), and the hello webhook's credentials.
          parents: [{ apiGroup: TEST_GROUP, resources: [KIND.plural] }, { apiGroup: 'config.loom.dev', resources: ['configmappropagations'] }],
          children: [{ apiGroup: '', resources: ['configmaps'] }],
          // Read only, for the test of a child type loom may read but not write.
          related: [{ apiGroup: '', resources: ['serviceaccounts'] }],
          secrets: ['hello-token'],
        },
      },
    });
    await applyHelloController('scoped', install.namespace);
    await applyPropagationController('scoped');
  }, 120_000);

  it('converges a webhook and a JSONata controller with exactly the granted permissions', async () => {
    await expectConverged('scoped', install);
    const holders = await whenSplit({ client: clients.client, namespace: install.namespace, group: 'metacontroller', buckets: 16 }, (counts) => counts.size === 1, 'all to this loom');
    expect(new Set(holders.values())).toEqual(new Set(['chart-test']));
  }, 150_000);

  it('names the missing permission on the controller when loom may not list a child type', async () => {
    await clients.apply(oneChildController('chart-scoped-secrets', 'secret-scoped', 'secrets', 'Secret'));
    await clients.apply(parent('secret-scoped', 'secret-scoped'));
    const ready = await eventually(async () => {
      const condition = await readyCondition(clients, 'chart-scoped-secrets');
      return condition?.status === 'False' ? condition : undefined;
    }, 'the controller to report what it may not do', 60_000);
    expect(ready.message, install.loom.logs()).toContain('loom may not list and watch secrets.v1');
    expect(ready.message).toContain(`User "system:serviceaccount:${install.namespace}:chart-scoped-loom" cannot list resource "secrets" in API group "" at the cluster scope`);
  }, 90_000);

  it('names the missing permission on the parent when loom may read but not write a child type', async () => {
    await clients.apply(oneChildController('chart-scoped-accounts', 'account-scoped', 'serviceaccounts', 'ServiceAccount'));
    await clients.apply(parent('account-scoped', 'account-scoped'));
    const messages = await syncErrorMessages(clients, { kind: KIND.kind, name: 'account-scoped' });
    expect(messages.join('\n'), install.loom.logs()).toContain(
      `User "system:serviceaccount:${install.namespace}:chart-scoped-loom" cannot patch resource "serviceaccounts" in API group "" in the namespace "${parents}"`,
    );
  }, 90_000);
});

describe('charts/loom with rbac.mode cluster', () => {
  let install: Install;

  beforeAll(async () => {
    install = await installChart('cluster', {});
    await applyHelloController('cluster', install.namespace);
    await applyPropagationController('cluster');
  }, 120_000);

  it('converges a webhook and a JSONata controller', async () => {
    await expectConverged('cluster', install);
  }, 150_000);
});
