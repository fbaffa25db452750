/**
 * A child process we own by PID: its output goes to a log file, and it is stopped by PID only
 * (SIGTERM, then SIGKILL after a grace period). Never by name: other runs may have the same binaries.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Clock } from '../engine/clock.ts';

/** How a process ended: its exit code, or the signal that ended it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What to run and where its output goes. */
export interface ProcessSpec {
  /** Short name for messages, e.g. `etcd`. */
  name: string;
  command: string;
  args: readonly string[];
  /** stdout and stderr are appended here. */
  logPath: string;
}

/** A started process. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Settles once the process has exited, however it ended. */
  readonly exited: Promise<ExitStatus>;
  /** The exit status once exited, else `undefined`. */
  exitStatus(): ExitStatus | undefined;
  /** SIGTERM by PID, SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
  /** Synchronous last resort for `process.on('exit')`, where nothing async can run. */
  killNow(): void;
}

const DEFAULT_GRACE_MS = 10_000;

/**
 * Starts `spec` in its own process group, so a Ctrl-C in the terminal reaches only our process, which
 * then stops the children in order (controller-manager before API server before etcd).
 */
export async function startProcess(spec: ProcessSpec, clock: Clock): Promise<ManagedProcess> {
  const logFd = openSync(spec.logPath, 'a');
  const child = spawn(spec.command, spec.args, { stdio: ['ignore', logFd, logFd], detached: true });
  closeSync(logFd);
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (cause) => {
      reject(new Error(`could not start ${spec.name} (${spec.command})`, { cause }));
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${spec.name} started without a PID`);

  let status: ExitStatus | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      status = { code, signal };
      resolve(status);
    });
  });

  const signal = (sig: NodeJS.Signals): void => {
    if (status) return;
    try {
      process.kill(pid, sig);
    } catch (err) {
      // ESRCH: it exited between our check and the kill; that is the outcome we wanted.
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  };

  const stop = async (graceMs = DEFAULT_GRACE_MS): Promise<void> => {
    if (status) return;
    signal('SIGTERM');
    const timer = new AbortController();
    const outcome = await Promise.race([
      exited.then(() => 'exited' as const),
      clock.sleep(graceMs, timer.signal).then(() => 'timeout' as const, () => 'exited' as const),
    ]);
    timer.abort();
    if (outcome === 'timeout') signal('SIGKILL');
    await exited;
  };

  return {
    name: spec.name,
    pid,
    logPath: spec.logPath,
    exited,
    exitStatus: () => status,
    stop,
    killNow: () => signal('SIGKILL'),
  };
}

/** True while a process with this PID exists (signal 0 checks without sending anything). */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
