/**
 * `loom dev`: loom's CRDs and the hello example installed, the example's hook served in-process, and
 * loom running against it — until Ctrl-C, then everything `dev` started stops. The cluster is a local
 * control plane started for the purpose, or with `--kubeconfig` (and `--context`) one the user
 * already has (kind, k3d, a real one), where nothing is built or started.
 */
import { readFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { load } from 'js-yaml';
import type { Logger } from 'pino';
import type { KubeObject } from '../api/index.ts';
import { startControlPlane } from '../devcluster/index.ts';
import { systemClock } from '../engine/index.ts';
import { createRestClient, loadKubeConfig, waitForCrdsEstablished, writerFromDiscovery, type ObjectWriter } from '../kube/index.ts';
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
  /** `loom run` flags; with `kubeconfig` set, dev uses that cluster instead of starting one. */
  config: LoomConfig;
}

const EXAMPLE = new URL('../../examples/hello/', import.meta.url);
const FIELD_MANAGER = 'loom-dev';

async function yamlOf(file: string): Promise<KubeObject> {
  return load(await readFile(new URL(file, EXAMPLE), 'utf8')) as KubeObject;
}

/** The cluster dev runs against, and how it lets go of it. */
interface DevCluster {
  kubeconfigPath: string;
  context: string | undefined;
  server: string;
  /** The last line of the banner: what Ctrl-C does. */
  onStop: string;
  stop(): Promise<void>;
}

async function localControlPlane(logger: Logger, signal: AbortSignal): Promise<DevCluster> {
  logger.info('starting the local control plane (the first run builds it from Go modules: about 5 minutes)');
  // No exit guards: Ctrl-C aborts `signal`, loom drains, and `stop` stops the plane last.
  const plane = await startControlPlane({ logger, signal, guardExit: false, crds: [...(await crdManifests()), await yamlOf('crd.yaml')] });
  return { ...plane, context: undefined, onStop: `Ctrl-C stops everything and removes ${plane.runDir}`, stop: () => plane.stop() };
}

/** An existing cluster: loom's and the example's CRDs are applied there; nothing else is started. */
async function existingCluster(kubeconfigPath: string, context: string | undefined): Promise<DevCluster> {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: kubeconfigPath, context }) });
  const writer = await writerFromDiscovery(client);
  const crds = [...(await crdManifests()), await yamlOf('crd.yaml')];
  for (const crd of crds) await writer.apply(crd, { fieldManager: FIELD_MANAGER });
  await waitForCrdsEstablished(client, crds.map((crd) => crd.metadata.name ?? ''), { sleep: (ms, signal) => systemClock.sleep(ms, signal) });
  return {
    kubeconfigPath, context, server: client.server,
    onStop: 'Ctrl-C stops loom and the hook and deletes the hello controller; CRDs and parents stay',
    stop: async () => {
      const { apiVersion, kind, metadata } = await yamlOf('controller.yaml');
      await writer.delete({ apiVersion, kind, name: metadata.name ?? '' });
    },
  };
}

/**
 * Applies the hello controller, its webhook pointed at the in-process hook server and labelled to
 * match `--target-label-selector`'s labels, so the loom dev starts picks it.
 */
async function applyExample(writer: ObjectWriter, hookUrl: string, config: LoomConfig): Promise<void> {
  const controller = await yamlOf('controller.yaml');
  (controller.spec as { hooks: { sync: { webhook: { url: string } } } }).hooks.sync.webhook.url = `${hookUrl}/sync`;
  controller.metadata.labels = { ...controller.metadata.labels, ...config.targetSelector?.matchLabels };
  await writer.apply(controller, { fieldManager: FIELD_MANAGER });
}

function banner(cluster: DevCluster, metricsPort: number | undefined, probePort: number | undefined): string {
  const kubectl = `kubectl --kubeconfig ${cluster.kubeconfigPath}${cluster.context ? ` --context ${cluster.context}` : ''}`;
  return `\nloom dev: loom is running against ${cluster.server}\n` +
    `  kubeconfig: ${cluster.kubeconfigPath}\n` +
    `  metrics:    http://127.0.0.1:${metricsPort}/metrics   probes: http://127.0.0.1:${probePort}/readyz\n` +
    `  try:        ${kubectl} apply -f examples/hello/hello.yaml\n` +
    `              ${kubectl} get configmap world-greeting -o yaml\n` +
    `  ${cluster.onStop}\n\n`;
}

/** Runs until `signal` aborts. */
export async function runDev({ logger, signal, out, config }: DevOptions): Promise<void> {
  const cluster = config.kubeconfig ? await existingCluster(config.kubeconfig, config.context) : await localControlPlane(logger, signal);
  const hook = helloHook({ logger: logger.child({ component: 'hello-hook' }) });
  try {
    const hookUrl = await hook.listen({ host: '127.0.0.1', port: 0 });
    const client = createRestClient({ kubeConfig: loadKubeConfig({ path: cluster.kubeconfigPath, context: cluster.context }) });
    await applyExample(await writerFromDiscovery(client), hookUrl, config);
    const loopback = { host: '127.0.0.1', port: 0 };
    const loom = await runLoom({ config: { ...config, kubeconfig: cluster.kubeconfigPath, metricsAddress: loopback, probeAddress: loopback }, logger, signal });
    out.write(banner(cluster, loom.metricsPort, loom.probePort));
    await loom.done;
  } finally {
    await hook.close();
    await cluster.stop();
  }
}
