/**
 * A real local Kubernetes control plane: etcd, kube-apiserver and kube-controller-manager on free
 * loopback ports, in a temporary directory, owned by PID. Used by `loom dev` and the integration tests.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { systemClock, type Clock } from '../engine/clock.ts';
import { ensureBinaries, type Binaries } from './binaries.ts';
import { apiServerArgs, controllerManagerArgs, etcdArgs } from './components.ts';
import { installExitGuards } from './exit-guards.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import type { ManagedProcess } from './managed-process.ts';
import { createPki, type Pki } from './pki.ts';
import { probe } from './probe.ts';
import { startComponent, type ComponentContext } from './start-component.ts';
import { waitUntil } from './wait-until.ts';
import { createCrds } from './create-crds.ts';

/** How to start a control plane; every field is optional. */
export interface ControlPlaneOptions {
  /** Progress and failures; silent by default. */
  logger?: Logger;
  clock?: Clock;
  /** Use these binaries instead of finding or building them. */
  binaries?: Binaries;
  /** Stop the processes on SIGINT/SIGTERM and kill them when this process exits (default true). */
  guardExit?: boolean;
  /** Cancels a start in progress (the build included); whatever was started is stopped. */
  signal?: AbortSignal;
  /**
   * CRDs to create before the controller-manager starts. The garbage collector rediscovers types
   * only every 30 s, so owners of a CRD kind created later are collected up to 30 s late.
   */
  crds?: readonly object[];
}

/** A running control plane. */
export interface ControlPlane {
  /** Admin kubeconfig (client certificate in `system:masters`). */
  readonly kubeconfigPath: string;
  /** `https://127.0.0.1:<port>` of the API server. */
  readonly server: string;
  /** Holds the certificates, etcd's data and the logs. */
  readonly runDir: string;
  /** Every process started, in start order. */
  readonly processes: readonly ManagedProcess[];
  /**
   * Milliseconds from the first process start (binaries already at hand) until each part was ready:
   * `etcd`, `kube-apiserver` (/readyz), `kube-controller-manager` (/healthz), `garbage-collector`.
   */
  readonly readyAfterMs: Readonly<Record<string, number>>;
  /**
   * Stops the processes by PID (newest first) and removes the run directory, unless `keepLogs` is set
   * or a process died on its own, in which case the logs stay and their path is logged. Each process
   * gets `graceMs` after SIGTERM before SIGKILL (default: the process's own default, 10 s).
   */
  stop(options?: { keepLogs?: boolean; graceMs?: number }): Promise<void>;
}

const GC_READY_LINE = 'Proceeding to collect garbage';

/** Builds the binaries if needed, then starts etcd, the API server and the controller-manager. */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const clock = options.clock ?? systemClock;
  const binaries = options.binaries ?? (await ensureBinaries((line) => logger.info(line), options.signal));
  const runDir = await mkdtemp(join(tmpdir(), 'loom-control-plane-'));
  const processes: ManagedProcess[] = [];
  const readyAfterMs: Record<string, number> = {};
  const ctx: ComponentContext = { clock, runDir, processes, signal: options.signal, startedAt: clock.now(), readyAfterMs };
  // Guarded from the first process on: a Ctrl-C during start must not leave etcd running.
  const stop = stopper({ runDir, processes, logger, guardExit: options.guardExit ?? true });
  try {
    const plane = await bootInOrder(ctx, binaries, options.crds ?? []);
    logger.info({ server: plane.server, readyAfterMs }, 'control plane ready');
    return { ...plane, runDir, processes, readyAfterMs, stop };
  } catch (err) {
    await stop({ keepLogs: true });
    throw new Error(`the local control plane did not start; logs kept in ${runDir}`, { cause: err });
  }
}

interface Booted {
  kubeconfigPath: string;
  server: string;
}

async function bootInOrder(ctx: ComponentContext, binaries: Binaries, crds: readonly object[]): Promise<Booted> {
  const pki = await createPki(join(ctx.runDir, 'pki'));
  const etcdUrl = await startEtcd(ctx, binaries.etcd);
  const server = await startApiServer(ctx, { binary: binaries.kubeApiserver, etcdUrl, pki });
  const kubeconfigPath = join(ctx.runDir, 'admin.kubeconfig');
  await writeKubeconfig(kubeconfigPath, server, pki);
  if (crds.length > 0) await createCrds({ kubeconfigPath, crds, clock: ctx.clock, signal: ctx.signal });
  await startControllerManager(ctx, binaries.kubeControllerManager, kubeconfigPath);
  ctx.signal?.throwIfAborted();
  return { kubeconfigPath, server };
}

async function startEtcd(ctx: ComponentContext, binary: string): Promise<string> {
  const { ports } = await startComponent(ctx, {
    name: 'etcd',
    portCount: 2,
    timeoutMs: 30_000,
    args: ([client, peer]) => etcdArgs(join(ctx.runDir, 'etcd'), { client: client!, peer: peer! }),
    binary,
    ready: async ([client]) => (await probe(`http://127.0.0.1:${client}/health`)).body.includes('"health":"true"'),
  });
  return `http://127.0.0.1:${ports[0]}`;
}

interface ApiServerInput {
  binary: string;
  etcdUrl: string;
  pki: Pki;
}

async function startApiServer(ctx: ComponentContext, input: ApiServerInput): Promise<string> {
  const tls = {
    ca: await readFile(input.pki.caCert),
    cert: await readFile(input.pki.adminCert),
    key: await readFile(input.pki.adminKey),
  };
  const certDir = join(ctx.runDir, 'apiserver-certs');
  const { ports } = await startComponent(ctx, {
    name: 'kube-apiserver',
    portCount: 1,
    timeoutMs: 120_000,
    args: ([port]) => apiServerArgs({ etcdUrl: input.etcdUrl, port: port!, pki: input.pki, certDir }),
    binary: input.binary,
    ready: async ([port]) => (await probe(`https://127.0.0.1:${port}/readyz`, tls)).status === 200,
  });
  return `https://127.0.0.1:${ports[0]}`;
}

async function startControllerManager(ctx: ComponentContext, binary: string, kubeconfigPath: string): Promise<void> {
  const certDir = join(ctx.runDir, 'controller-manager-certs');
  await mkdir(certDir, { recursive: true });
  const { process: kcm } = await startComponent(ctx, {
    name: 'kube-controller-manager',
    portCount: 1,
    timeoutMs: 60_000,
    args: ([port]) => controllerManagerArgs({ kubeconfigPath, port: port!, certDir }),
    binary,
    // The controller-manager serves a certificate it made itself; this probe only asks "are you up".
    ready: async ([port]) => (await probe(`https://127.0.0.1:${port}/healthz`, { insecure: true })).status === 200,
  });
  // Healthy is not enough: garbage collection starts only once every resource monitor has synced.
  await waitUntil(async () => (await readFile(kcm.logPath, 'utf8')).includes(GC_READY_LINE), {
    clock: ctx.clock,
    what: 'the garbage collector to sync',
    timeoutMs: 60_000,
    intervalMs: 200,
    giveUpIf: () => (kcm.exitStatus() ? `kube-controller-manager exited; see ${kcm.logPath}` : undefined),
    signal: ctx.signal,
  });
  ctx.readyAfterMs['garbage-collector'] = ctx.clock.now() - ctx.startedAt;
}

interface StopperInput {
  runDir: string;
  processes: ManagedProcess[];
  logger: Logger;
  guardExit: boolean;
}

/** The idempotent `stop` of a control plane; installs the exit guards until it is called. */
function stopper(input: StopperInput): ControlPlane['stop'] {
  const { processes, runDir, logger } = input;
  let stopping: Promise<void> | undefined;
  let removeGuards = (): void => {};
  const stop = (options: { keepLogs?: boolean; graceMs?: number } = {}): Promise<void> => {
    stopping ??= (async () => {
      const crashed = processes.filter((p) => p.exitStatus() !== undefined).map((p) => p.name);
      await stopNewestFirst(processes, options.graceMs);
      removeGuards();
      if (options.keepLogs || crashed.length > 0) {
        logger.warn({ runDir, crashed }, 'control plane stopped; logs kept');
      } else {
        await rm(runDir, { recursive: true, force: true });
        logger.info('control plane stopped');
      }
    })();
    return stopping;
  };
  if (input.guardExit) removeGuards = installExitGuards({ stop: () => stop(), processes });
  return stop;
}

/** One at a time, newest first: the controller-manager needs the API server, which needs etcd. */
async function stopNewestFirst(processes: readonly ManagedProcess[], graceMs: number | undefined): Promise<void> {
  for (const p of processes.toReversed()) await p.stop(graceMs);
}
