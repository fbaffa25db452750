/**
 * The exit guards in a real process: a Node process starts an idle child the way the control plane
 * starts etcd, installs the guards, and is then stopped the ways a terminal or a supervisor stops it.
 * The guarded child must never outlive it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../engine/clock.ts';
import { isPidAlive } from './managed-process.ts';
import { waitUntil } from './wait-until.ts';

const dirs: string[] = [];
const leftovers: number[] = [];
afterAll(async () => {
  for (const pid of leftovers) if (isPidAlive(pid)) process.kill(pid, 'SIGKILL');
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const module = (file: string): string => JSON.stringify(new URL(file, import.meta.url).href);

/** The guarded process: prints the idle child's PID, then runs `after` (ESM, top-level await). */
function guardedScript(logPath: string, after: string): string {
  return `
    import { installExitGuards } from ${module('./exit-guards.ts')};
    import { startProcess } from ${module('./managed-process.ts')};
    import { systemClock } from ${module('../engine/clock.ts')};
    const idle = await startProcess({ name: 'idle', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], logPath: ${JSON.stringify(logPath)} }, systemClock);
    installExitGuards({ stop: () => idle.stop(), processes: [idle] });
    console.log(idle.pid);
    ${after}
  `;
}

interface Guarded {
  pid: number;
  childPid: number;
  /** The guarded process's stdout after the PID line. */
  lines: Interface;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startGuarded(after: string): Promise<Guarded> {
  const dir = await mkdtemp(join(tmpdir(), 'loom-exit-guards-test-'));
  dirs.push(dir);
  const guarded = spawn(process.execPath, ['--input-type=module', '-e', guardedScript(join(dir, 'idle.log'), after)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(guarded, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const lines = createInterface({ input: guarded.stdout });
  const [firstLine] = (await once(lines, 'line')) as [string];
  const childPid = Number(firstLine);
  leftovers.push(guarded.pid!, childPid);
  expect(isPidAlive(childPid)).toBe(true);
  return { pid: guarded.pid!, childPid, lines, exited };
}

const gone = (pid: number): Promise<void> =>
  waitUntil(() => Promise.resolve(!isPidAlive(pid)), { clock: systemClock, what: `PID ${pid} to be gone`, timeoutMs: 45_000, intervalMs: 20 });

const IDLE = 'setInterval(() => {}, 1000);';

// An orphan killed after its parent exited is reaped by PID 1, which may take a second or two; each
// test starts two Node processes, which takes seconds on a loaded machine. The bounds only stop hangs.
describe('installExitGuards', () => {
  it.each([
    { signal: 'SIGINT' as const, code: 130 },
    { signal: 'SIGTERM' as const, code: 143 },
  ])('stops the children on $signal, then exits with $code', async ({ signal, code }) => {
    const guarded = await startGuarded(IDLE);
    process.kill(guarded.pid, signal);
    expect(await guarded.exited).toEqual({ code, signal: null });
    await gone(guarded.childPid);
    expect(isPidAlive(guarded.childPid)).toBe(false);
  });

  it('kills the children by PID when the process exits without stopping them', async () => {
    const guarded = await startGuarded('process.exit(7);');
    expect(await guarded.exited).toEqual({ code: 7, signal: null });
    await gone(guarded.childPid);
    expect(isPidAlive(guarded.childPid)).toBe(false);
  });

  it('stops the children but leaves the exit to a signal listener of its own', async () => {
    // The script's own listener speaks once the child has stopped and a later timer has run: a guard
    // that exited the process anyway would end it before that line.
    const listener = `process.on('SIGTERM', () => idle.exited.then(() => setTimeout(() => console.log('still running'), 200))); ${IDLE}`;
    const guarded = await startGuarded(listener);
    const nextLine = once(guarded.lines, 'line').then(([line]) => line as string);
    process.kill(guarded.pid, 'SIGTERM');
    expect(await Promise.race([nextLine, guarded.exited.then((status) => `exited ${JSON.stringify(status)}`)])).toBe('still running');
    expect(isPidAlive(guarded.childPid)).toBe(false);
    process.kill(guarded.pid, 'SIGKILL');
    expect(await guarded.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
