/**
 * Starts one control-plane process on fresh loopback ports and waits until it is ready. A process
 * that dies because its port was taken meanwhile is retried on new ports; any other failure carries
 * the end of its log, so the reason is in the error itself.
 */
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../engine/clock.ts';
import { startProcess, type ManagedProcess } from './managed-process.ts';
import { freeLoopbackPort, PortInUseError, retryOnPortConflict } from './ports.ts';
import { waitUntil } from './wait-until.ts';

/** Shared by every component of one control plane. */
export interface ComponentContext {
  clock: Clock;
  runDir: string;
  /** Every started process is pushed here, so a later failure can stop it. */
  processes: ManagedProcess[];
  /** Cancels the start. */
  signal?: AbortSignal | undefined;
  /** When the first process was about to start ({@link Clock.now}). */
  startedAt: number;
  /** Milliseconds from `startedAt` until each component was ready, by name. */
  readyAfterMs: Record<string, number>;
  /** Picks a port to try; {@link freeLoopbackPort} unless a test needs to hand out a taken one. */
  choosePort?: () => Promise<number>;
}

/** One process to start. */
export interface ComponentSpec {
  name: string;
  binary: string;
  portCount: number;
  timeoutMs: number;
  args(ports: readonly number[]): string[];
  /** Resolves true once the process serves; may throw while it is starting. */
  ready(ports: readonly number[]): Promise<boolean>;
}

/** A started, ready component and the ports it got. */
export interface StartedComponent {
  process: ManagedProcess;
  ports: readonly number[];
}

const PORT_IN_USE = /address already in use/i;
const LOG_TAIL_BYTES = 4_000;

/** Starts `spec` and resolves once its `ready` check passes. */
export function startComponent(ctx: ComponentContext, spec: ComponentSpec): Promise<StartedComponent> {
  return retryOnPortConflict(async () => {
    ctx.signal?.throwIfAborted();
    const choosePort = ctx.choosePort ?? freeLoopbackPort;
    const ports = await Promise.all(Array.from({ length: spec.portCount }, () => choosePort()));
    const logPath = join(ctx.runDir, `${spec.name}.log`);
    const logStart = await sizeOf(logPath);
    const process = await startProcess({ name: spec.name, command: spec.binary, args: spec.args(ports), logPath }, ctx.clock);
    ctx.processes.push(process);
    try {
      await waitUntil(() => spec.ready(ports), {
        clock: ctx.clock,
        what: `${spec.name} to become ready`,
        timeoutMs: spec.timeoutMs,
        giveUpIf: () => describeExit(process),
        signal: ctx.signal,
      });
      ctx.readyAfterMs[spec.name] = ctx.clock.now() - ctx.startedAt;
      return { process, ports };
    } catch (err) {
      await process.stop();
      ctx.processes.splice(ctx.processes.indexOf(process), 1);
      const tail = await readTail(logPath, logStart);
      if (PORT_IN_USE.test(tail)) throw new PortInUseError(`${spec.name}: a port was taken (${ports.join(', ')})`);
      throw new Error(`${spec.name} failed to start; its log ${logPath} ends with:\n${tail}`, { cause: err });
    }
  });
}

function describeExit(process: ManagedProcess): string | undefined {
  const status = process.exitStatus();
  if (!status) return undefined;
  return `${process.name} exited (${status.signal ?? `code ${status.code}`})`;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0; // No log yet: this is the first attempt.
  }
}

/** The end of what this attempt wrote to the log (earlier attempts append to the same file). */
async function readTail(path: string, from: number): Promise<string> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const start = Math.max(from, size - LOG_TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await file.read(buffer, 0, buffer.length, start);
    return buffer.toString('utf8');
  } finally {
    await file.close();
  }
}
