/**
 * Real evaluator processes get nothing they do not need (issue: they inherited the host's whole
 * environment, a SECRET_TOKEN and KUBECONFIG among it, and could read and start anything loom can).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../engine/clock.ts';
import type { EvaluatorReply } from './evaluator-protocol.ts';
import { startEvaluatorProcess, type EvaluatorProcess } from './evaluator-process.ts';
import { sandboxArgs, sandboxEnv } from './evaluator-sandbox.ts';

const ENTRY = new URL('../jsonata-evaluator.ts', import.meta.url);
const started: EvaluatorProcess[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'loom-sandbox-'));
afterAll(() => {
  for (const process of started) process.kill();
  rmSync(scratch, { recursive: true, force: true });
});

/** A real evaluator, started with `SECRET_TOKEN` and `KUBECONFIG` in loom's environment; resolves once it is ready. */
async function readyEvaluator(): Promise<{ process: EvaluatorProcess; replies: EvaluatorReply[] }> {
  process.env.SECRET_TOKEN = 'loom-test-secret-token';
  process.env.KUBECONFIG = '/somewhere/kubeconfig';
  const replies: EvaluatorReply[] = [];
  let exited = false;
  const evaluator = startEvaluatorProcess(ENTRY, 64, { reply: (r) => void replies.push(r), exit: () => void (exited = true) });
  started.push(evaluator);
  delete process.env.SECRET_TOKEN;
  delete process.env.KUBECONFIG;
  while (!replies.some((r) => r.type === 'ready')) {
    if (exited) throw new Error('the evaluator exited before it was ready');
    await systemClock.sleep(20);
  }
  return { process: evaluator, replies };
}

const procFile = (pid: number | undefined, name: string): string[] => readFileSync(`/proc/${pid}/${name}`, 'utf8').split('\0').filter(Boolean);

describe('evaluator sandbox', () => {
  it('gives an evaluator none of the host’s environment but its allocator arenas', async () => {
    const { process: evaluator } = await readyEvaluator();
    const environ = procFile(evaluator.pid, 'environ');
    expect(environ.join('\n')).not.toMatch(/SECRET_TOKEN|KUBECONFIG|PATH=|HOME=/);
    // The host's arena limit, what fork adds for the IPC channel, and nothing else.
    expect(environ.map((v) => v.split('=')[0]).sort()).toEqual(['MALLOC_ARENA_MAX', 'NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE']);
    expect(environ).toContain(`MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2'}`);
  });

  it.each([
    { name: 'passes on the host’s arena limit, and nothing else', host: { MALLOC_ARENA_MAX: '4', SECRET_TOKEN: 't', KUBECONFIG: '/k', PATH: '/bin' }, env: { MALLOC_ARENA_MAX: '4' } },
    { name: 'limits the arenas to 2, as the `loom` command does, where the host sets no limit', host: { SECRET_TOKEN: 't' }, env: { MALLOC_ARENA_MAX: '2' } },
  ])('$name', ({ host, env }) => {
    expect(sandboxEnv(host)).toEqual(env);
  });

  it('runs an evaluator under the permission model, reading only its own code, and it still evaluates', async () => {
    const { process: evaluator, replies } = await readyEvaluator();
    const args = procFile(evaluator.pid, 'cmdline');
    expect(args).toContain('--permission');
    const grants = args.filter((a) => a.startsWith('--allow-'));
    expect(grants).toEqual([
      `--allow-fs-read=${dirname(fileURLToPath(ENTRY))}`,
      expect.stringMatching(/\/node_modules\/jsonata$/),
      '--allow-worker',
    ]);
    // Its own modules and JSONata load under those grants: an expression compiles and answers.
    evaluator.send({ type: 'define', id: 1, definition: { expression: '{"sum": 1 + 2}', hook: 'sync', timeoutMs: 5_000 } });
    evaluator.send({ type: 'call', call: 1, id: 1, request: {} });
    while (!replies.some((r) => r.type !== 'ready')) await systemClock.sleep(20);
    expect(replies.at(-1)).toEqual({ type: 'result', call: 1, response: { sum: 3 } });
  });

  it('denies a process started with those options any other file, and child processes', async () => {
    // The evaluator has no way to try (JSONata cannot call Node), so a probe program is started with
    // the very options and environment an evaluator gets, and reports what it may do.
    const secret = join(scratch, 'secret.txt');
    writeFileSync(secret, 'secret');
    const probe = join(scratch, 'probe.mjs');
    writeFileSync(probe, `
      import { readFileSync, writeFileSync } from 'node:fs';
      import { spawnSync } from 'node:child_process';
      const attempt = (f) => { try { f(); return 'allowed'; } catch (e) { return e.code ?? String(e); } };
      process.send({
        hostname: attempt(() => readFileSync('/etc/hostname')),
        tempFile: attempt(() => readFileSync(${JSON.stringify(secret)})),
        writeTemp: attempt(() => writeFileSync(${JSON.stringify(join(scratch, 'w'))}, 'x')),
        spawn: attempt(() => spawnSync(process.execPath, ['-e', '1'])),
        ownCode: process.permission.has('fs.read', ${JSON.stringify(fileURLToPath(new URL('./evaluator-pool.ts', import.meta.url)))}),
        env: Object.keys(process.env).filter((k) => !k.startsWith('NODE_CHANNEL')),
      }, () => process.exit(0));
    `);
    const child = fork(probe, [], { execArgv: sandboxArgs(ENTRY), env: sandboxEnv(), stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const report = await new Promise<unknown>((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`the probe exited (${code}) without a report`)));
    });
    expect(report).toEqual({ hostname: 'ERR_ACCESS_DENIED', tempFile: 'ERR_ACCESS_DENIED', writeTemp: 'ERR_ACCESS_DENIED', spawn: 'ERR_ACCESS_DENIED', ownCode: true, env: ['MALLOC_ARENA_MAX'] });
  });
});
