/**
 * Runs the `loom` command from the sources as an OS process of its own, as a user or a CI job runs
 * it, so a test sees what they see: the exit status (or the signal that ended it) and everything
 * printed, also when V8 ends the process with a fatal error that no in-process test could survive.
 * The process is started and stopped by its PID only; a test that gives up on it (a hang, a
 * timeout) kills it with {@link LoomCommands.stopAll}.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../engine/clock.ts';

const BIN = fileURLToPath(new URL('./bin.ts', import.meta.url));

/** How one `loom` command ended, and what it printed. */
export interface LoomCommandRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall-clock milliseconds from the start to the exit: reported by tests, never asserted. */
  elapsedMs: number;
  /** The command's PID. */
  pid: number;
}

/** A command that has started. */
export interface StartedLoomCommand {
  pid: number;
  /** Resolves once it has exited, however it ended. */
  done: Promise<LoomCommandRun>;
}

/** Starts `loom` commands and stops, by PID, those still running. */
export interface LoomCommands {
  /** Starts `loom ARGS…` in `cwd`. */
  start(args: readonly string[], cwd?: string): Promise<StartedLoomCommand>;
  /** Runs `loom ARGS…` in `cwd` and resolves once it has exited, however it ended. */
  run(args: readonly string[], cwd?: string): Promise<LoomCommandRun>;
  /** SIGKILLs every command still running (for `afterEach`: a test that timed out leaves none behind). */
  stopAll(): void;
}

/** A starter of `loom` commands for one test file. */
export function loomCommands(): LoomCommands {
  const running = new Set<number>();
  const start = async (args: readonly string[], cwd?: string): Promise<StartedLoomCommand> => {
    const started = systemClock.now();
    // process.execPath: the Node running the tests (24), not whatever `node` is first on PATH.
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => void (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => void (stderr += text));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('close', (code, signal) => resolve({ code, signal }));
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('spawn', () => resolve(child.pid!));
      child.once('error', reject);
    });
    running.add(pid);
    const done = closed.then(({ code, signal }) => {
      running.delete(pid);
      return { code, signal, stdout, stderr, elapsedMs: systemClock.now() - started, pid };
    });
    return { pid, done };
  };
  return {
    start,
    run: async (args, cwd) => (await start(args, cwd)).done,
    stopAll() {
      for (const pid of running) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // It exited between the exit event and this kill: nothing to stop.
        }
      }
      running.clear();
    },
  };
}
