/**
 * `loom dev --kubeconfig`, for users who already have a cluster: nothing is built or started but
 * loom and the hook; the hello example converges there, and Ctrl-C deletes the example controller dev
 * created while CRDs and parents stay. Dev touches only what is its own: it refuses to start over a
 * `hello-controller` that someone else made (and leaves it as it was), it runs none of the cluster's
 * other controllers (even one its `--target-label-selector` matches), it leaves loom's CRDs alone when
 * they are installed already (their field managers stay as they were), and after a crash a rerun
 * recognises the controller the crashed run left as its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { crdManifests } from '../src/cli/install-crds.ts';
import { createTestNamespace, eventually, managersOf, testKubeConfig } from './support/cluster.ts';
import { readyCondition, testClients, type TestClients } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'dev-existing-cluster';
const OTHER = TEST_PARENT_KINDS.devOther;
const CC = { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController' };
const started = new Set<ChildProcess>();
let clients: TestClients;
let namespace: string;

afterAll(() => {
  for (const dev of started) if (dev.exitCode === null && dev.signalCode === null) process.kill(dev.pid!, 'SIGKILL');
});

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, OTHER);
});

/** A running `loom dev` and what it printed. */
interface Dev {
  process: ChildProcess;
  /** Resolves with stdout once the banner is out; rejects with stdout and stderr when dev exits first. */
  banner: Promise<string>;
  exited: Promise<{ code: number | null; stderr: string }>;
}

/** Starts `loom dev --kubeconfig`, its host kept to this file's controllers by the selector. */
function startDev(): Dev {
  const args = ['src/cli/main.ts', 'dev', '--kubeconfig', inject('kubeconfigPath'), '--target-label-selector', `loom-test=${LABEL}`, '--log-level', 'warn'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stderr: err })));
  const banner = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ctrl-C')) resolve(out);
    });
    void exited.then(({ code }) => reject(new Error(`loom dev exited early with ${code}: ${out}${err}`)));
  });
  banner.catch(() => undefined);
  return { process: child, banner, exited };
}

const getController = (name: string) => clients.writer.get({ ...CC, name });

/** Someone else's `hello-controller`: another parent, another hook, run by no host of this suite. */
const foreignHello: KubeObject = {
  ...CC, metadata: { name: 'hello-controller' },
  spec: {
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: 'nothings' },
    hooks: { sync: { webhook: { url: 'http://127.0.0.1:9/someone-elses-hook' } } },
  },
};

/** A controller already in the cluster that dev's selector matches, with a JSONata hook that would make a ConfigMap. */
const otherController: KubeObject = {
  ...CC, metadata: { name: 'dev-existing-other', labels: { 'loom-test': LABEL } },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: OTHER.plural },
    childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
    hooks: { sync: { jsonata: { expression: '{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-other" } }] }' } } },
  },
};

async function crdManagers(): Promise<Record<string, string[]>> {
  const names = (await crdManifests()).map((crd) => crd.metadata.name!);
  const crds = await Promise.all(names.map((name) => clients.writer.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name })));
  return Object.fromEntries(crds.map((crd, i) => [names[i]!, managersOf(crd!)] as const));
}

async function stop(dev: Dev, signal: NodeJS.Signals): Promise<number | null> {
  process.kill(dev.process.pid!, signal);
  return (await dev.exited).code;
}

describe('loom dev --kubeconfig', () => {
  it('refuses to start over a hello-controller that is not its own, and leaves it as it was', async () => {
    const before = await clients.writer.create(foreignHello);
    const dev = startDev();
    const { code, stderr } = await dev.exited;
    expect(code).not.toBe(0);
    expect(stderr).toContain('CompositeController hello-controller exists and was not created by loom dev');
    const after = await getController('hello-controller');
    expect(after?.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after?.spec).toEqual(before.spec);
    expect(await clients.writer.delete({ ...CC, name: 'hello-controller' })).toBe(true);
    await eventually(async () => ((await getController('hello-controller')) ? undefined : true), 'the foreign hello-controller gone');
  });

  it('runs only its own controller, leaves installed CRDs alone, and removes the controller on Ctrl-C', async () => {
    await clients.apply(otherController);
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: OTHER.kind, metadata: { name: 'waiting', namespace } });
    const managersBefore = await crdManagers();
    const dev = startDev();
    const banner = await dev.banner;
    expect(banner).toContain(`loom is running against ${testKubeConfig().getCurrentCluster()?.server}`);
    expect(banner).toContain('deletes the hello controller; CRDs and parents stay');

    await clients.apply({ apiVersion: 'examples.loom.dev/v1', kind: 'HelloWorld', metadata: { name: 'existing', namespace }, spec: { who: 'cluster' } });
    const greeting = await eventually(
      () => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'existing-greeting' }), 'the greeting ConfigMap');
    expect(greeting.data).toEqual({ greeting: 'Hello, cluster!' });
    // dev's host has started and synced its controller; one that it ran would have its Ready condition by now.
    await eventually(async () => (await readyCondition(clients, 'hello-controller'))?.status === 'True' || undefined, 'hello-controller Ready');
    expect(await readyCondition(clients, otherController.metadata.name!)).toBeUndefined();
    expect(await clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'waiting-other' })).toBeUndefined();
    expect(await crdManagers()).toEqual(managersBefore);

    expect(await stop(dev, 'SIGINT')).toBe(0);
    expect(await getController('hello-controller')).toBeUndefined();
    expect(await clients.writer.get({ apiVersion: 'examples.loom.dev/v1', kind: 'HelloWorld', namespace, name: 'existing' })).toBeDefined();
    expect(await getController(otherController.metadata.name!)).toBeDefined();
  });

  it('after a crash, a rerun takes back the controller the crashed run left', async () => {
    const crashed = startDev();
    await crashed.banner;
    await stop(crashed, 'SIGKILL');
    const left = await getController('hello-controller');
    expect(left).toBeDefined();

    const rerun = startDev();
    await rerun.banner;
    expect(await stop(rerun, 'SIGINT')).toBe(0);
    expect(await getController('hello-controller')).toBeUndefined();
    await clients.writer.delete({ ...CC, name: otherController.metadata.name! });
  });
});
