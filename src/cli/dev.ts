/**
 * `loom dev`: a local control plane with loom's CRDs and the hello example installed, the example's
 * hook served in-process, and loom running against it — until Ctrl-C, then everything stops.
 */
import { readFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { load } from 'js-yaml';
import type { Logger } from 'pino';
import type { KubeObject } from '../api/index.ts';
import { startControlPlane } from '../devcluster/index.ts';
import { createRestClient, loadKubeConfig, writerFromDiscovery } from '../kube/index.ts';
import { runLoom, type LoomConfig } from '../main.ts';
import { helloHook } from '../../examples/hello/hook.ts';
import { crdManifests } from './install-crds.ts';

/** What `loom dev` needs from the composition root. */
export interface DevOptions {
  logger: Logger;
  /** Aborted on Ctrl-C / SIGTERM; everything is stopped then. */
  signal: AbortSignal;
  /** Where the human-readable instructions go. */
  out: Writable;
  /** `loom run` flags (kubeconfig and the server addresses are set by dev itself). */
  config: LoomConfig;
}

const EXAMPLE = new URL('../../examples/hello/', import.meta.url);

async function yamlOf(file: string): Promise<KubeObject> {
  return load(await readFile(new URL(file, EXAMPLE), 'utf8')) as KubeObject;
}

/** Applies the hello controller, its webhook pointed at the in-process hook server. */
async function applyExample(kubeconfigPath: string, hookUrl: string): Promise<void> {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: kubeconfigPath }) });
  const writer = await writerFromDiscovery(client);
  const controller = await yamlOf('controller.yaml');
  (controller.spec as { hooks: { sync: { webhook: { url: string } } } }).hooks.sync.webhook.url = `${hookUrl}/sync`;
  await writer.apply(controller, { fieldManager: 'loom-dev' });
}

/** Runs until `signal` aborts. */
export async function runDev({ logger, signal, out, config }: DevOptions): Promise<void> {
  logger.info('starting the local control plane (the first run builds it from Go modules: about 5 minutes)');
  // No exit guards: Ctrl-C aborts `signal`, loom drains, and the `finally` below stops the plane last.
  const plane = await startControlPlane({ logger, signal, guardExit: false, crds: [...(await crdManifests()), await yamlOf('crd.yaml')] });
  const hook = helloHook({ logger: logger.child({ component: 'hello-hook' }) });
  try {
    const hookUrl = await hook.listen({ host: '127.0.0.1', port: 0 });
    await applyExample(plane.kubeconfigPath, hookUrl);
    const loopback = { host: '127.0.0.1', port: 0 };
    const loom = await runLoom({ config: { ...config, kubeconfig: plane.kubeconfigPath, metricsAddress: loopback, probeAddress: loopback }, logger, signal });
    const kubectl = `kubectl --kubeconfig ${plane.kubeconfigPath}`;
    out.write(
      `\nloom dev: loom is running against a local control plane at ${plane.server}\n` +
        `  kubeconfig: ${plane.kubeconfigPath}\n` +
        `  metrics:    http://127.0.0.1:${loom.metricsPort}/metrics   probes: http://127.0.0.1:${loom.probePort}/readyz\n` +
        `  try:        ${kubectl} apply -f examples/hello/hello.yaml\n` +
        `              ${kubectl} get configmap world-greeting -o yaml\n` +
        `  Ctrl-C stops everything and removes ${plane.runDir}\n\n`,
    );
    await loom.done;
  } finally {
    await hook.close();
    await plane.stop();
  }
}
