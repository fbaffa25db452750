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
import { createAbsent, createOwn, DEV_FIELD_MANAGER, deleteOwn, devSelector } from './dev-objects.ts';
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
  /**
   * Whether loom may run only dev's own controllers: on a cluster the user already has, where another
   * loom may run the others. On dev's own control plane every controller is the user's, applied to try it.
   */
  ownControllersOnly: boolean;
  /** Lets go of the cluster, once dev's own controller (`undefined`: never written) is done with. */
  stop(controller: KubeObject | undefined): Promise<void>;
}

async function localControlPlane(logger: Logger, signal: AbortSignal): Promise<DevCluster> {
  logger.info('starting the local control plane (the first run builds it from Go modules: about 5 minutes)');
  // No exit guards: Ctrl-C aborts `signal`, loom drains, and `stop` stops the plane last.
  const plane = await startControlPlane({ logger, signal, guardExit: false, crds: [...(await crdManifests()), await yamlOf('crd.yaml')] });
  return { ...plane, context: undefined, ownControllersOnly: false, onStop: `Ctrl-C stops everything and removes ${plane.runDir}`, stop: () => plane.stop() };
}

/**
 * An existing cluster, where nothing is started: loom's and the example's CRDs are created there when
 * absent and left as they are when present (an installed loom or Metacontroller owns them).
 */
async function existingCluster(logger: Logger, kubeconfigPath: string, context: string | undefined): Promise<DevCluster> {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: kubeconfigPath, context }) });
  const writer = await writerFromDiscovery(client, DEV_FIELD_MANAGER);
  const crds = [...(await crdManifests()), await yamlOf('crd.yaml')];
  const present = await createAbsent(writer, crds);
  if (present.length > 0) logger.info({ crds: present }, 'these CRDs are installed already; loom dev leaves them as they are');
  await waitForCrdsEstablished(client, crds.map((crd) => crd.metadata.name ?? ''), { sleep: (ms, signal) => systemClock.sleep(ms, signal) });
  return {
    kubeconfigPath, context, server: client.server, ownControllersOnly: true,
    onStop: 'Ctrl-C stops loom and the hook and deletes the hello controller; CRDs and parents stay',
    stop: async (controller) => {
      if (controller) await deleteOwn(writer, controller);
    },
  };
}

/**
 * Creates the hello controller as dev's own (see dev-objects.ts), its webhook pointed at the
 * in-process hook server and labelled to match `--target-label-selector`'s labels too, so the loom
 * dev starts picks it. Throws, writing nothing, when a `hello-controller` that is not dev's exists.
 */
async function createExample(writer: ObjectWriter, hookUrl: string, config: LoomConfig): Promise<KubeObject> {
  const controller = await yamlOf('controller.yaml');
  (controller.spec as { hooks: { sync: { webhook: { url: string } } } }).hooks.sync.webhook.url = `${hookUrl}/sync`;
  controller.metadata.labels = { ...controller.metadata.labels, ...config.targetSelector?.matchLabels };
  return createOwn(writer, controller);
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
  const cluster = config.kubeconfig ? await existingCluster(logger, config.kubeconfig, config.context) : await localControlPlane(logger, signal);
  const hook = helloHook({ logger: logger.child({ component: 'hello-hook' }) });
  let controller: KubeObject | undefined;
  try {
    const hookUrl = await hook.listen({ host: '127.0.0.1', port: 0 });
    const client = createRestClient({ kubeConfig: loadKubeConfig({ path: cluster.kubeconfigPath, context: cluster.context }) });
    controller = await createExample(await writerFromDiscovery(client, DEV_FIELD_MANAGER), hookUrl, config);
    const loopback = { host: '127.0.0.1', port: 0 };
    const targetSelector = cluster.ownControllersOnly ? devSelector(config.targetSelector) : config.targetSelector;
    const hostConfig = { ...config, kubeconfig: cluster.kubeconfigPath, metricsAddress: loopback, probeAddress: loopback, targetSelector };
    const loom = await runLoom({ config: hostConfig, logger, signal });
    out.write(banner(cluster, loom.metricsPort, loom.probePort));
    await loom.done;
  } finally {
    await hook.close();
    await cluster.stop(controller);
  }
}
