/**
 * `loom dev --kubeconfig`, for users who already have a cluster: nothing is built or started but
 * loom and the hook; loom's and the example's CRDs are applied to that cluster (here the test control
 * plane), the hello example converges there, and Ctrl-C deletes the example controller dev applied
 * while CRDs and parents stay. `--target-label-selector` keeps this host to its own controller on the
 * shared plane: dev gives the example controller the selector's labels.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { testClients } from './support/loom.ts';

const LABEL = 'dev-existing-cluster';
let dev: ChildProcess | undefined;

afterAll(() => {
  if (dev?.exitCode === null) dev.kill('SIGKILL');
});

/** Starts `loom dev --kubeconfig` and resolves with its banner. */
function startDev(kubeconfig: string): Promise<string> {
  const args = ['src/cli/main.ts', 'dev', '--kubeconfig', kubeconfig, '--target-label-selector', `loom-test=${LABEL}`, '--log-level', 'warn'];
  dev = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    dev!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ctrl-C')) resolve(out);
    });
    dev!.once('exit', (code) => reject(new Error(`loom dev exited early with ${code}: ${out}`)));
  });
}

describe('loom dev --kubeconfig', () => {
  it('runs the hello example on an existing cluster and removes its controller on Ctrl-C', async () => {
    const kubeconfig = inject('kubeconfigPath');
    const clients = await testClients();
    const banner = await startDev(kubeconfig);
    expect(banner).toContain(`loom is running against ${testKubeConfig().getCurrentCluster()?.server}`);
    expect(banner).toContain('deletes the hello controller; CRDs and parents stay');

    const namespace = await createTestNamespace(testKubeConfig(), LABEL);
    await clients.refresh();
    await clients.apply({ apiVersion: 'examples.loom.dev/v1', kind: 'HelloWorld', metadata: { name: 'existing', namespace }, spec: { who: 'cluster' } });
    const greeting = await eventually(
      () => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'existing-greeting' }), 'the greeting ConfigMap');
    expect(greeting.data).toEqual({ greeting: 'Hello, cluster!' });

    const exited = new Promise((resolve) => dev!.once('exit', resolve));
    process.kill(dev!.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    expect(await clients.writer.get({ apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', name: 'hello-controller' })).toBeUndefined();
    expect(await clients.writer.get({ apiVersion: 'examples.loom.dev/v1', kind: 'HelloWorld', namespace, name: 'existing' })).toBeDefined();
  });
});
