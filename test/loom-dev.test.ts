/**
 * `loom dev` end to end, as `make run` starts it: a second control plane, loom's CRDs, the hello
 * example and its hook; applying the example parent yields its ConfigMap and status; a controller the
 * user applies (no label of dev's) runs too, as "Your first controller" in the README does it; Ctrl-C
 * (SIGINT, sent by PID) stops everything and removes the run directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createRestClient, loadKubeConfig, waitForCrdsEstablished, writerFromDiscovery } from '../src/kube/index.ts';
import { eventually } from './support/cluster.ts';
import { parentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const USERS = TEST_PARENT_KINDS.devUser;

let dev: ChildProcess | undefined;

// A test that failed leaves dev running: Ctrl-C first, so dev stops the control plane it started (a
// SIGKILL would leave etcd, kube-apiserver and kube-controller-manager behind), and SIGKILL only if
// it is still there a minute later.
afterAll(async () => {
  if (!dev || dev.exitCode !== null || dev.signalCode !== null) return;
  const exited = new Promise((resolve) => dev!.once('exit', resolve));
  dev.kill('SIGINT');
  const killed = systemClock.sleep(60_000).then(() => dev!.kill('SIGKILL'));
  await Promise.race([exited, killed]);
}, 90_000);

function startDev(): Promise<{ kubeconfig: string; runDir: string }> {
  dev = spawn(process.execPath, ['src/cli/main.ts', 'dev', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    dev!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const kubeconfig = /kubeconfig: (\S+)/.exec(out)?.[1];
      const runDir = /removes (\S+)/.exec(out)?.[1];
      if (kubeconfig && runDir) resolve({ kubeconfig, runDir });
    });
    dev!.once('exit', (code) => reject(new Error(`loom dev exited early with ${code}: ${out}`)));
  });
}

describe('loom dev', () => {
  it('runs the hello example until Ctrl-C', async () => {
    const { kubeconfig, runDir } = await startDev();
    const client = createRestClient({ kubeConfig: loadKubeConfig({ path: kubeconfig }) });
    const writer = await writerFromDiscovery(client, 'loom-test');
    const hello = load(await readFile('examples/hello/hello.yaml', 'utf8')) as KubeObject;
    await writer.apply(hello, { fieldManager: 'test' });

    const greeting = await eventually(() => writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'world-greeting' }), 'the greeting ConfigMap');
    expect(greeting.data).toEqual({ greeting: 'Hello, world!' });
    const status = await eventually(async () => {
      const parent = await writer.get({ apiVersion: hello.apiVersion, kind: hello.kind, namespace: 'default', name: 'world' });
      return (parent?.status as { ready?: boolean } | undefined)?.ready ? parent?.status : undefined;
    }, 'the status to say ready');
    expect(status).toEqual({ greeting: 'Hello, world!', ready: true, observedGeneration: 1 });

    // The user's own controller, applied as the README's walkthrough does: no label of dev's.
    const crd = parentCrd(USERS);
    await writer.apply(crd, { fieldManager: 'test' });
    await waitForCrdsEstablished(client, [crd.metadata.name!], { sleep: (ms, signal) => systemClock.sleep(ms, signal) });
    const users = await writerFromDiscovery(client, 'loom-test');
    await users.apply({
      apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'users-controller' },
      spec: {
        generateSelector: true,
        parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: USERS.plural },
        childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
        hooks: { sync: { jsonata: { expression: '{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-made" } }] }' } } },
      },
    }, { fieldManager: 'test' });
    await users.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: USERS.kind, metadata: { name: 'mine', namespace: 'default' }, spec: {} }, { fieldManager: 'test' });
    await eventually(() => writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'mine-made' }), "the user controller's child");

    const exited = new Promise<number | null>((resolve) => dev!.once('exit', resolve));
    dev!.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(runDir)).toBe(false);
  });
});
