/**
 * Stops and restarts the kube-apiserver of a control plane a test started for itself, and starts a
 * second API server on the same etcd — the other replica of an HA control plane, through which a test
 * changes the cluster while the first one is down. The devcluster cannot restart one component, so
 * this reads the running API server's binary and arguments from /proc and starts them again, on the
 * same port, with the log appended to the same file. Never use it on the shared control plane: every
 * test file running beside it would lose its API server.
 */
import { readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ControlPlane, ManagedProcess } from '../../src/devcluster/index.ts';
import { startProcess } from '../../src/devcluster/managed-process.ts';
import { freeLoopbackPort } from '../../src/devcluster/ports.ts';
import { probe, type ProbeTls } from '../../src/devcluster/probe.ts';
import { waitUntil } from '../../src/devcluster/wait-until.ts';
import { systemClock } from '../../src/engine/index.ts';

/** Control over the API server of one private control plane. */
export interface ApiServerControl {
  /** Stops the API server now serving the plane's address (SIGTERM by PID, SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** Starts it again with the same command line; resolves once /readyz answers ok. */
  start(): Promise<void>;
  /** Starts another API server on the same etcd and a free port; resolves once it is ready. */
  startReplica(): Promise<ApiServerReplica>;
  /** Stops every process this control started (before the plane's `stop`, which stops etcd). */
  close(): Promise<void>;
}

/** A second API server over the same etcd. */
export interface ApiServerReplica {
  /** The plane's admin kubeconfig, pointing at this server. */
  kubeconfigPath: string;
  stop(): Promise<void>;
}

interface CommandLine {
  command: string;
  args: string[];
}

/** Reads the plane's API server command line; the plane's own `processes` still own the first process. */
export async function controlApiServer(plane: ControlPlane): Promise<ApiServerControl> {
  const original = plane.processes.find((p) => p.name === 'kube-apiserver');
  if (!original) throw new Error('the control plane has no kube-apiserver process');
  const line = await commandLineOf(original.pid);
  const tls = await adminTls(plane.runDir);
  const started: ManagedProcess[] = [];
  let current: ManagedProcess = original;
  // A failed test must not leave API servers running after the test process exits.
  const killOnExit = (): void => started.forEach((p) => p.killNow());
  process.on('exit', killOnExit);

  const launch = async (name: string, args: string[], server: string): Promise<ManagedProcess> => {
    const proc = await startProcess({ name, command: line.command, args, logPath: join(plane.runDir, `${name}.log`) }, systemClock);
    started.push(proc);
    await waitUntil(async () => (await probe(`${server}/readyz`, tls)).status === 200, {
      clock: systemClock, what: `${name} /readyz`, timeoutMs: 120_000,
      giveUpIf: () => (proc.exitStatus() ? `${name} exited; see ${proc.logPath}` : undefined),
    });
    return proc;
  };

  return {
    stop: () => current.stop(),
    async start() {
      current = await launch('kube-apiserver', line.args, plane.server);
    },
    async startReplica() {
      const port = await freeLoopbackPort();
      const server = `https://127.0.0.1:${port}`;
      const replica = await launch('kube-apiserver-replica', line.args.map((a) => (a.startsWith('--secure-port=') ? `--secure-port=${port}` : a)), server);
      const kubeconfigPath = join(plane.runDir, 'replica.kubeconfig');
      await writeFile(kubeconfigPath, (await readFile(plane.kubeconfigPath, 'utf8')).replaceAll(plane.server, server), { mode: 0o600 });
      return { kubeconfigPath, stop: () => replica.stop() };
    },
    async close() {
      for (const p of started.toReversed()) await p.stop();
      process.off('exit', killOnExit);
    },
  };
}

/** The binary (via /proc/<pid>/exe, so a relative argv[0] cannot mislead) and the arguments. */
async function commandLineOf(pid: number): Promise<CommandLine> {
  const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').slice(0, -1);
  return { command: await readlink(`/proc/${pid}/exe`), args: argv.slice(1) };
}

/** The admin client certificate and the CA, as the plane wrote them under `pki/`. */
async function adminTls(runDir: string): Promise<ProbeTls> {
  const read = (file: string): Promise<Buffer> => readFile(join(runDir, 'pki', file));
  return { ca: await read('ca.crt'), cert: await read('admin.crt'), key: await read('admin.key') };
}
