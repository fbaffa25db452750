/**
 * `@kubernetes/client-node` stays unloaded on loom's run path: importing the composition root, loading
 * kubeconfigs and authenticating requests with token, certificate and exec users never load it; a
 * legacy `auth-provider` user loads it, and only on its first request. Checked in a fresh Node process
 * whose module resolve hook records every module that gets loaded (the test runner's own module
 * loading would hide it in-process).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loom-lazy-client-node-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A kubeconfig for an unreachable server (no request is sent) as `user`. */
async function kubeconfig(name: string, user: Record<string, unknown>): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
  }));
  return path;
}

/** Runs `steps` (module code with `loadKubeConfig` and `request(kc)` in scope) and reports after each whether client-node was loaded. */
function clientNodeLoadedAfter(steps: Record<string, string>): Record<string, boolean> {
  const script = `
    import { registerHooks } from 'node:module';
    let loaded = false;
    registerHooks({ resolve(specifier, context, next) {
      const result = next(specifier, context);
      if (result.url.includes('/node_modules/@kubernetes/client-node/')) loaded = true;
      return result;
    } });
    const { loadKubeConfig } = await import(${JSON.stringify(pathToFileURL(join(SRC, 'kube/kube-config.ts')).href)});
    const request = async (kc) => { const opts = { headers: {} }; await kc.applyToHTTPSOptions(opts); return opts; };
    const report = {};
    ${Object.entries(steps).map(([name, code]) => `${code};\nreport[${JSON.stringify(name)}] = loaded;`).join('\n')}
    console.log(JSON.stringify(report));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: resolve(SRC, '..'), encoding: 'utf8', timeout: 60_000 });
  if (child.status !== 0) throw new Error(`child failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<string, boolean>;
}

describe('@kubernetes/client-node', () => {
  it('is not loaded by the run path, nor for token, certificate and exec users; an auth-provider user loads it on its first request', async () => {
    const credential = join(dir, 'credential.json');
    await writeFile(credential, JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'e' } }));
    const token = await kubeconfig('token', { token: 't', as: 'someone' });
    const pem = (text: string) => Buffer.from(`-----BEGIN ${text}-----\n-----END ${text}-----\n`).toString('base64');
    const cert = await kubeconfig('cert', { 'client-certificate-data': pem('CERTIFICATE'), 'client-key-data': pem('PRIVATE KEY') });
    const exec = await kubeconfig('exec', { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'cat', args: [credential] } });
    const payload = Buffer.from(JSON.stringify({ exp: 4102444800 })).toString('base64url');
    const oidc = await kubeconfig('oidc', { 'auth-provider': { name: 'oidc', config: { 'id-token': `e30.${payload}.sig`, 'client-id': 'loom' } } });
    const report = clientNodeLoadedAfter({
      main: `await import(${JSON.stringify(pathToFileURL(join(SRC, 'main.ts')).href)})`,
      token: `if ((await request(loadKubeConfig({ path: ${JSON.stringify(token)} }))).headers.Authorization !== 'Bearer t') throw new Error('no token')`,
      cert: `if (!(await request(loadKubeConfig({ path: ${JSON.stringify(cert)} }))).cert) throw new Error('no certificate')`,
      exec: `if ((await request(loadKubeConfig({ path: ${JSON.stringify(exec)} }))).headers.Authorization !== 'Bearer e') throw new Error('no exec token')`,
      oidcLoad: `const oidcConfig = loadKubeConfig({ path: ${JSON.stringify(oidc)} })`,
      oidcRequest: `if (!(await request(oidcConfig)).headers.Authorization?.startsWith('Bearer e30.')) throw new Error('no oidc token')`,
    });
    expect(report).toEqual({ main: false, token: false, cert: false, exec: false, oidcLoad: false, oidcRequest: true });
  }, 90_000); // A fresh Node process importing the composition root: seconds on a loaded machine, so a generous bound.

  it('when not installed (it is an optional dependency) leaves loom running, and an auth-provider user gets an error saying to install it', async () => {
    const token = await kubeconfig('token', { token: 't' });
    const payload = Buffer.from(JSON.stringify({ exp: 4102444800 })).toString('base64url');
    const oidc = await kubeconfig('oidc', { 'auth-provider': { name: 'oidc', config: { 'id-token': `e30.${payload}.sig`, 'client-id': 'loom' } } });
    const script = `
      import { registerHooks } from 'node:module';
      // As if npm had left the optional dependency out: resolving it fails as for any missing package.
      registerHooks({ resolve(specifier, context, next) {
        if (specifier === '@kubernetes/client-node') throw Object.assign(new Error("Cannot find package '@kubernetes/client-node'"), { code: 'ERR_MODULE_NOT_FOUND' });
        return next(specifier, context);
      } });
      await import(${JSON.stringify(pathToFileURL(join(SRC, 'main.ts')).href)});
      const { loadKubeConfig } = await import(${JSON.stringify(pathToFileURL(join(SRC, 'kube/kube-config.ts')).href)});
      const request = async (path) => { const opts = { headers: {} }; await loadKubeConfig({ path }).applyToHTTPSOptions(opts); return opts.headers.Authorization; };
      const oidc = await request(${JSON.stringify(oidc)}).then(() => 'no error', (error) => error.message);
      console.log(JSON.stringify({ token: await request(${JSON.stringify(token)}), oidc }));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: resolve(SRC, '..'), encoding: 'utf8', timeout: 60_000 });
    expect(child.stderr).toBe('');
    const report = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { token: string; oidc: string };
    expect(report.token).toBe('Bearer t');
    expect(report.oidc).toContain('install @kubernetes/client-node to use auth-provider oidc');
  }, 90_000); // As above: a fresh Node process importing the composition root.
});
