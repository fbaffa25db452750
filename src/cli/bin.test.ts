/**
 * The `loom` command's start: `loom run` replaces itself, under the same PID, with a Node that has
 * 8 MiB semi-spaces and `MALLOC_ARENA_MAX=2`, unless the caller set its own. Read from Linux's /proc
 * while the host waits on an API server that never answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm, writeFile, mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = new URL('./bin.ts', import.meta.url).pathname;
let silent: Server;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  silent = createServer(() => undefined); // Accepts connections and never answers.
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  dir = await mkdtemp(join(tmpdir(), 'loom-bin-'));
  kubeconfig = join(dir, 'kubeconfig');
  const server = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  await writeFile(kubeconfig, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server } }], users: [{ name: 'c', user: {} }], contexts: [{ name: 'c', context: { cluster: 'c', user: 'c' } }],
  }));
});

afterAll(async () => {
  silent.close();
  await rm(dir, { recursive: true, force: true });
});

/** Starts `loom run` from the sources, waits until the process image has settled, and reads its arguments and environment. */
async function startedAs(env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<{ args: string[]; env: string[] }> {
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, BIN, 'run', '--kubeconfig', kubeconfig, '--metrics-address', '0', '--health-probe-bind-address', '0'], {
    env: { ...process.env, MALLOC_ARENA_MAX: undefined, NODE_OPTIONS: undefined, ...env }, stdio: 'ignore',
  });
  try {
    // The host is up once it has connected to the API server (which never answers).
    await new Promise<void>((resolve) => silent.once('connection', () => resolve()));
    const read = async (file: string) => (await readFile(`/proc/${child.pid}/${file}`, 'utf8')).split('\0').filter(Boolean);
    return { args: await read('cmdline'), env: await read('environ') };
  } finally {
    child.kill('SIGKILL');
  }
}

describe.runIf(process.platform === 'linux')('the loom command', () => {
  it('runs the host with 8 MiB semi-spaces and two malloc arenas', async () => {
    const started = await startedAs({});
    expect(started.args).toContain('--max-semi-space-size=8');
    expect(started.env).toContain('MALLOC_ARENA_MAX=2');
  });

  it('keeps the settings its caller gave', async () => {
    const started = await startedAs({ MALLOC_ARENA_MAX: '4' }, ['--max-semi-space-size=16']);
    expect(started.args.filter((arg) => arg.startsWith('--max-semi-space-size'))).toEqual(['--max-semi-space-size=16']);
    expect(started.env).toContain('MALLOC_ARENA_MAX=4');
  });
});
