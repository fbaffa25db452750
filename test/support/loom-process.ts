/**
 * Runs `loom run` as an OS process of its own, as a Deployment would, so a test can kill it with
 * SIGKILL by PID — no shutdown code runs, unlike aborting the in-process host of `loom.ts`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { inject } from 'vitest';

/** A `loom run` process started by a test. */
export interface LoomProcess {
  readonly pid: number;
  /** Settles when the process has exited, however it ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last few KiB of its stderr (its logs), for failure messages. */
  logTail(): string;
  /** How many bytes it has written to stderr (its logs) so far. */
  logBytes(): number;
  /** SIGKILL by PID; resolves once it has exited. */
  kill(): Promise<void>;
  /** SIGTERM by PID, as the kubelet stops a container; resolves with how it exited. */
  terminate(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const LOG_TAIL_CHARS = 8_000;

/**
 * Starts `node <entry> run` against the test control plane for controllers labelled
 * `loom-test=<label>`, with no HTTP servers; `flags` are added to the command line. `entry` is the
 * sources' `src/cli/main.ts` unless given (the compiled package's `bin.js`, say); `env` is added to
 * the test process's environment.
 */
export async function spawnLoom(label: string, flags: readonly string[] = [], entry = 'src/cli/main.ts', env: Record<string, string> = {}): Promise<LoomProcess> {
  const args = [
    entry, 'run', '--kubeconfig', inject('kubeconfigPath'), '--target-label-selector', `loom-test=${label}`,
    '--metrics-address', '0', '--health-probe-bind-address', '0', '--log-level', 'warn', ...flags,
  ];
  // process.execPath: the Node running the tests (24), not whatever `node` is first on PATH.
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let tail = '';
  let logBytes = 0;
  child.stderr.on('data', (chunk: Buffer) => {
    logBytes += chunk.length;
    // Only the chunk's end is decoded: a huge log line must not be copied whole into the test process.
    tail = (tail + chunk.subarray(-LOG_TAIL_CHARS).toString('utf8')).slice(-LOG_TAIL_CHARS);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const pid = child.pid!;
  let ended = false;
  void exited.then(() => (ended = true));
  // A failed test must not leave loom running after the test process exits.
  const killOnExit = (): void => {
    if (!ended) process.kill(pid, 'SIGKILL');
  };
  process.once('exit', killOnExit);
  return {
    pid, exited, logTail: () => tail, logBytes: () => logBytes,
    async kill() {
      process.off('exit', killOnExit);
      if (!ended) process.kill(pid, 'SIGKILL');
      await exited;
    },
    async terminate() {
      if (!ended) process.kill(pid, 'SIGTERM');
      const exit = await exited;
      process.off('exit', killOnExit);
      return exit;
    },
  };
}

/** PIDs of the live processes whose parent is `pid` (loom's JSONata evaluators), read from /proc. */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(entry);
    // Field 4 of /proc/<pid>/stat is the parent PID; the command name before it may hold spaces.
    const ppid = stat === undefined ? undefined : Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) children.push(Number(entry));
  }
  return children;
}

/** True while `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  const stat = readProcStat(String(pid));
  return stat !== undefined && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

function readProcStat(pid: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // It exited while we were reading /proc: not a child any more.
  }
}
