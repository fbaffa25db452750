import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../engine/clock.ts';
import { isPidAlive, startProcess } from './managed-process.ts';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function logPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'loom-process-test-'));
  dirs.push(dir);
  return join(dir, 'out.log');
}

function nodeScript(name: string, code: string, log: string) {
  return { name, command: process.execPath, args: ['-e', code], logPath: log };
}

describe('startProcess', () => {
  it('writes output to the log and reports the exit code', async () => {
    const log = await logPath();
    const child = await startProcess(nodeScript('echo', 'console.log("hello"); process.exit(3)', log), systemClock);
    expect(await child.exited).toEqual({ code: 3, signal: null });
    expect(child.exitStatus()).toEqual({ code: 3, signal: null });
    expect(await readFile(log, 'utf8')).toBe('hello\n');
  });

  it('stops a running process by PID with SIGTERM', async () => {
    const child = await startProcess(nodeScript('idle', 'setInterval(() => {}, 1000)', await logPath()), systemClock);
    expect(isPidAlive(child.pid)).toBe(true);
    await child.stop();
    expect(child.exitStatus()).toEqual({ code: null, signal: 'SIGTERM' });
    expect(isPidAlive(child.pid)).toBe(false);
  });

  it('kills a process that ignores SIGTERM once the grace period is over', async () => {
    const code = 'process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1000)';
    const log = await logPath();
    const child = await startProcess(nodeScript('stubborn', code, log), systemClock);
    // Wait until the handler is installed, or SIGTERM would end it before it could ignore anything.
    while (!(await readFile(log, 'utf8')).includes('ready')) await systemClock.sleep(20);
    await child.stop(200);
    expect(child.exitStatus()).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('fails with the command in the message when the binary does not exist', async () => {
    const spec = { name: 'ghost', command: '/nonexistent/kube-apiserver', args: [], logPath: await logPath() };
    await expect(startProcess(spec, systemClock)).rejects.toThrow('could not start ghost (/nonexistent/kube-apiserver)');
  });
});
