/**
 * An exec plugin as loom runs it: only when a credential is asked for, once for all the requests that
 * ask while it runs, again only after the credential's expirationTimestamp, with the environment and
 * `KUBERNETES_EXEC_INFO` it is owed, and with an error naming the command and quoting its stderr when
 * it fails. The plugins are small shell scripts that count their runs in a file.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { execCredentialSource, MAX_PLUGIN_OUTPUT_BYTES, type ExecConfig, type PluginDeadline } from './exec-credential.ts';

const V1 = 'client.authentication.k8s.io/v1';

let dir: string;
/** Processes a test's plugin started, stopped by PID after it whatever happened. */
let spawned: number[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loom-exec-'));
  spawned = [];
});

afterEach(async () => {
  vi.useRealTimers();
  for (const pid of spawned) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** The PID a plugin wrote to `file` in the test's directory, once it has. */
async function pidIn(file: string): Promise<number> {
  return vi.waitFor(async () => {
    const pid = Number((await readFile(join(dir, file), 'utf8')).trim());
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no PID in ${file} yet`);
    return pid;
  }, { timeout: 30_000, interval: 50 });
}

/** Whether `pid` is a live process (a zombie waiting to be reaped counts as gone). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** A plugin that appends a line to `runs` each time it runs, then prints `credential.json`. */
async function countingPlugin(status: Record<string, unknown>, apiVersion = V1): Promise<ExecConfig> {
  await writeCredential(status, apiVersion);
  const script = join(dir, 'plugin.sh');
  await writeFile(script, `#!/bin/sh\necho run >> "${join(dir, 'runs')}"\ncat "${join(dir, 'credential.json')}"\n`);
  await chmod(script, 0o755);
  return { command: script, args: [], env: [], apiVersion: V1, provideClusterInfo: false };
}

async function writeCredential(status: Record<string, unknown>, apiVersion = V1): Promise<void> {
  await writeFile(join(dir, 'credential.json'), JSON.stringify({ apiVersion, kind: 'ExecCredential', status }));
}

async function runs(): Promise<number> {
  return (await readFile(join(dir, 'runs'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
}

const noCluster = () => ({});

/** A deadline never reached: the plugin's run ends some other way. */
const NO_DEADLINE: PluginDeadline = {
  timeoutMs: 60_000,
  sleep: (_ms, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))),
};

/** A script that records its PID and a backgrounded child's in `shell` and `grandchild`, runs `body`, then waits. */
async function groupPlugin(body: string): Promise<string> {
  const script = join(dir, 'plugin.sh');
  await writeFile(script, `#!/bin/sh\necho $$ > "${join(dir, 'shell')}"\nsleep 1000 &\necho $! > "${join(dir, 'grandchild')}"\n${body}\nwait\n`);
  await chmod(script, 0o755);
  return script;
}

/** The PIDs {@link groupPlugin} recorded, to be stopped after the test whatever happened. */
async function groupPids(): Promise<number[]> {
  const pids = [await pidIn('shell'), await pidIn('grandchild')];
  spawned.push(...pids);
  return pids;
}

describe('an exec plugin', () => {
  it('is not run until a credential is asked for, and then once for all who ask meanwhile', async () => {
    const source = execCredentialSource(await countingPlugin({ token: 't1' }), noCluster);
    expect(await runs()).toBe(0);
    const credentials = await Promise.all([source(), source(), source()]);
    expect(credentials.map((c) => c.token)).toEqual(['t1', 't1', 't1']);
    expect(await runs()).toBe(1);
  });

  it('is run again only once the credential has expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00Z') });
    const source = execCredentialSource(await countingPlugin({ token: 't1', expirationTimestamp: '2030-01-01T00:10:00Z' }), noCluster);
    expect((await source()).token).toBe('t1');
    await writeCredential({ token: 't2', expirationTimestamp: '2030-01-01T00:20:00Z' });
    vi.setSystemTime(new Date('2030-01-01T00:09:59Z'));
    expect((await source()).token).toBe('t1');
    expect(await runs()).toBe(1);
    vi.setSystemTime(new Date('2030-01-01T00:10:01Z'));
    expect((await source()).token).toBe('t2');
    expect(await runs()).toBe(2);
  });

  it('keeps a credential without an expirationTimestamp', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00Z') });
    const source = execCredentialSource(await countingPlugin({ token: 't1' }), noCluster);
    await source();
    vi.setSystemTime(new Date('2031-01-01T00:00:00Z'));
    expect((await source()).token).toBe('t1');
    expect(await runs()).toBe(1);
  });

  it('hands over a client certificate and key', async () => {
    const source = execCredentialSource(await countingPlugin({ clientCertificateData: 'CERT', clientKeyData: 'KEY' }), noCluster);
    expect(await source()).toEqual({ clientCertificateData: 'CERT', clientKeyData: 'KEY', token: undefined });
  });

  it('gets its env, loom\'s environment and KUBERNETES_EXEC_INFO, with the cluster when it asks for it', async () => {
    const config: ExecConfig = {
      command: 'sh',
      args: ['-c', 'printf \'{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s|%s|%s"}}\' "$API" "$GREETING" "$HOME" "$(echo "$KUBERNETES_EXEC_INFO" | base64 | tr -d "\\n")"'],
      env: [{ name: 'GREETING', value: 'hello' }, { name: 'API', value: V1 }],
      apiVersion: V1,
      provideClusterInfo: true,
    };
    const credential = await execCredentialSource(config, () => ({ server: 'https://example:6443' }))();
    const [greeting, home, info] = credential.token!.split('|');
    expect(greeting).toBe('hello');
    expect(home).toBe(process.env.HOME);
    expect(JSON.parse(Buffer.from(info!, 'base64').toString('utf8'))).toEqual({
      apiVersion: V1, kind: 'ExecCredential', spec: { interactive: false, cluster: { server: 'https://example:6443' } },
    });
  });

  it('leaves the cluster out of KUBERNETES_EXEC_INFO unless asked to provide it', async () => {
    const config: ExecConfig = {
      command: 'sh', args: ['-c', `echo "$KUBERNETES_EXEC_INFO" > "${join(dir, 'info')}"; printf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"t"}}'`],
      env: [], apiVersion: V1, provideClusterInfo: false,
    };
    const clusterInfo = vi.fn(() => ({ server: 'https://example:6443' }));
    await execCredentialSource(config, clusterInfo)();
    expect(JSON.parse(await readFile(join(dir, 'info'), 'utf8'))).toEqual({ apiVersion: V1, kind: 'ExecCredential', spec: { interactive: false } });
    expect(clusterInfo).not.toHaveBeenCalled();
  });
});

describe('an exec plugin that fails', () => {
  it('gives an error naming the command and the exit code, not quoting its stderr, and is run again on the next ask', async () => {
    // A plugin's stderr may carry the credential (a debug line, a token in an echoed command line), and
    // the error goes to logs, events and conditions.
    const config: ExecConfig = { command: 'sh', args: ['-c', 'echo "refresh failed: Authorization: Bearer eyJsecret.token.value" >&2; exit 3'], env: [], apiVersion: V1, provideClusterInfo: false };
    const source = execCredentialSource(config, noCluster);
    const err = await source().then(() => new Error('no failure'), (e: unknown) => e as Error);
    expect(err.message).toContain('exec plugin sh failed with exit code 3');
    expect(err.message).toContain('run the command to see its output');
    expect(err.message).not.toContain('eyJsecret');
    expect(err.message).not.toContain('refresh failed');
    await expect(source()).rejects.toThrow('exit code 3');
  });

  it('that cannot be found gives the install hint', async () => {
    const config: ExecConfig = { command: join(dir, 'missing-plugin'), args: [], env: [], apiVersion: V1, installHint: 'install it with: brew install missing-plugin', provideClusterInfo: false };
    await expect(execCredentialSource(config, noCluster)()).rejects.toThrow(/exec plugin .*missing-plugin could not be run: .*ENOENT[\s\S]*brew install missing-plugin/);
  });

  it('is refused when it answers in another version, or without a credential', async () => {
    await expect(execCredentialSource(await countingPlugin({ token: 't' }, 'client.authentication.k8s.io/v1beta1'), noCluster)())
      .rejects.toThrow(`is configured for ${V1} but answered in client.authentication.k8s.io/v1beta1`);
    await expect(execCredentialSource(await countingPlugin({}), noCluster)()).rejects.toThrow('returned neither a token nor a client certificate');
    await expect(execCredentialSource(await countingPlugin({ clientCertificateData: 'CERT' }), noCluster)()).rejects.toThrow('both are needed');
  });

  it('that hangs is given up at the deadline with its whole process group, even when a grandchild holds its output open', async () => {
    // A plugin wrapped in a shell: the shell waits for a backgrounded child that inherited its stdout,
    // so the output never closes, whoever is killed first.
    const script = join(dir, 'wrapper.sh');
    await writeFile(script, `#!/bin/sh\necho $$ > "${join(dir, 'shell')}"\nsleep 1000 &\necho $! > "${join(dir, 'grandchild')}"\nwait\n`);
    await chmod(script, 0o755);
    let reachDeadline: (() => void) | undefined;
    const deadline: PluginDeadline = {
      timeoutMs: 60_000,
      sleep: (ms, signal) => new Promise((resolve, reject) => {
        expect(ms).toBe(60_000);
        reachDeadline = resolve;
        signal.addEventListener('abort', () => reject(signal.reason as Error));
      }),
    };
    const source = execCredentialSource({ command: script, args: [], env: [], apiVersion: V1, provideClusterInfo: false }, noCluster, deadline);
    const answer = source().then(() => new Error('no failure'), (e: unknown) => e as Error);
    const shell = await pidIn('shell');
    const grandchild = await pidIn('grandchild');
    spawned.push(shell, grandchild);
    expect(reachDeadline).toBeDefined();
    reachDeadline?.();
    const err = await answer;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain(`exec plugin ${script} did not finish within 60 s`);
    await vi.waitFor(() => expect([isRunning(shell), isRunning(grandchild)]).toEqual([false, false]), { timeout: 30_000, interval: 50 });
  }, 90_000);

  it('is refused before it runs when its apiVersion is not one loom speaks', () => {
    const config: ExecConfig = { command: 'true', args: [], env: [], apiVersion: 'client.authentication.k8s.io/v1alpha1', provideClusterInfo: false };
    expect(() => execCredentialSource(config, noCluster)).toThrow('apiVersion "client.authentication.k8s.io/v1alpha1" is not supported');
  });

  it('that prints without end is stopped with its whole process group once it has printed more than 1 MiB', async () => {
    // 2 MiB, then it waits: an answer that big is no credential, and the wait must not go on to the deadline.
    const script = await groupPlugin(`head -c ${2 * MAX_PLUGIN_OUTPUT_BYTES} /dev/zero`);
    const source = execCredentialSource({ command: script, args: [], env: [], apiVersion: V1, provideClusterInfo: false }, noCluster, NO_DEADLINE);
    const err = await source().then(() => new Error('no failure'), (e: unknown) => e as Error);
    expect(err.message).toContain(`exec plugin ${script} printed more than ${MAX_PLUGIN_OUTPUT_BYTES} bytes`);
    const pids = await groupPids();
    await vi.waitFor(() => expect(pids.map(isRunning)).toEqual([false, false]), { timeout: 30_000, interval: 50 });
  }, 90_000);
});

describe('an exec plugin still running when loom exits', () => {
  it('is stopped with its whole process group, though no signal to loom reaches its group', async () => {
    const script = await groupPlugin('');
    const host = spawn(process.execPath, [new URL('./exec-plugin-host.test-support.ts', import.meta.url).pathname, script], { stdio: ['pipe', 'ignore', 'inherit'] });
    spawned.push(host.pid!);
    const pids = await groupPids();
    const exited = once(host, 'exit');
    host.stdin.end('exit\n');
    expect(await exited).toEqual([0, null]);
    await vi.waitFor(() => expect(pids.map(isRunning)).toEqual([false, false]), { timeout: 30_000, interval: 50 });
  }, 90_000);
});
