/**
 * `loom dev`: a local control plane to develop against, running until Ctrl-C.
 */
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { startControlPlane } from '../devcluster/index.ts';

/** What `loom dev` needs from the composition root. */
export interface DevOptions {
  logger: Logger;
  /** Aborted on Ctrl-C / SIGTERM; everything is stopped then. */
  signal: AbortSignal;
  /** Where the human-readable instructions go. */
  out: Writable;
}

/** Starts the control plane, prints how to use it, and stops it when `signal` aborts. */
export async function runDev({ logger, signal, out }: DevOptions): Promise<void> {
  logger.info('starting the local control plane (the first run builds it from Go modules: many minutes)');
  const plane = await startControlPlane({ logger, signal });
  out.write(
    `\nloom dev: a local Kubernetes control plane is running at ${plane.server}\n` +
      `  kubeconfig: ${plane.kubeconfigPath}\n` +
      `  try:        kubectl --kubeconfig ${plane.kubeconfigPath} get ns\n` +
      `  Ctrl-C stops it and removes ${plane.runDir}\n\n`,
  );
  if (!signal.aborted) {
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }
  logger.info('stopping the local control plane');
  await plane.stop();
}
