/**
 * Which kubeconfig loom uses, and the in-cluster path a Pod takes: a service-account directory (here a
 * temporary one standing in for /var/run/secrets/kubernetes.io/serviceaccount) and the
 * `KUBERNETES_SERVICE_HOST`/`PORT` the kubelet sets. The requests go to a real HTTPS server whose
 * certificate only the directory's `ca.crt` verifies, and the token is read again once it rotates.
 * Then `$KUBECONFIG`'s files merged as kubectl merges them, paths relative to the file naming them,
 * and `~/.kube/config` as the last resort.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpsServer, testPkis, type TestPki } from '../hooks/tls-pki.test-support.ts';
import { loadKubeConfig, SERVICE_ACCOUNT_DIR, type KubeEnvironment } from './kube-config.ts';
import { createRestClient } from './rest-client.ts';

let dir: string;
let pki: TestPki;
let cleanupPki: () => Promise<void>;
let server: { url: string; close: () => Promise<void> };

/** A kubeconfig file naming `server` with a static token. */
const kubeconfigFile = (name: string, server: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Config', 'current-context': name,
  clusters: [{ name, cluster: { server } }], users: [{ name, user: { token: name } }], contexts: [{ name, context: { cluster: name, user: name } }],
});

beforeAll(async () => {
  const made = await testPkis(1);
  pki = made.pkis[0]!;
  cleanupPki = made.cleanup;
  server = await httpsServer({
    pki, requireClientCert: false,
    routes: (app) => app.get('/api', (request, reply) => reply.send({ authorization: request.headers.authorization })),
  });
});

afterAll(async () => {
  await server.close();
  await cleanupPki();
});

async function serviceAccountDir(files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'loom-service-account-'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return dir;
}

afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const inCluster = () => ({ serviceHost: '127.0.0.1', servicePort: new URL(server.url).port });

describe('loadKubeConfig in a cluster', () => {
  it('talks to KUBERNETES_SERVICE_HOST:PORT, verified with ca.crt, as the token, in the namespace of the directory', async () => {
    const serviceAccount = await serviceAccountDir({ token: 'token-1', 'ca.crt': pki.ca, namespace: 'loom-system\n' });
    const kc = loadKubeConfig({ environment: inCluster(), serviceAccountDir: serviceAccount });
    expect(kc.getCurrentCluster()?.server).toBe(server.url);
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('loom-system');
    const client = createRestClient({ kubeConfig: kc });
    expect(await client.request({ method: 'GET', path: '/api' })).toEqual({ authorization: 'Bearer token-1' });
  });

  it('reads a rotated token again once the one it has is a minute old', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const serviceAccount = await serviceAccountDir({ token: 'token-1', 'ca.crt': pki.ca });
    const client = createRestClient({ kubeConfig: loadKubeConfig({ environment: inCluster(), serviceAccountDir: serviceAccount }) });
    const authorization = async () => (await client.request<{ authorization: string }>({ method: 'GET', path: '/api' })).authorization;
    expect(await authorization()).toBe('Bearer token-1');
    await writeFile(join(serviceAccount, 'token'), 'token-2');
    expect(await authorization()).toBe('Bearer token-1');
    vi.advanceTimersByTime(61_000);
    expect(await authorization()).toBe('Bearer token-2');
  });

  it('brackets an IPv6 service host', async () => {
    const serviceAccount = await serviceAccountDir({ token: 't', 'ca.crt': pki.ca });
    const kc = loadKubeConfig({ environment: { serviceHost: 'fd00::1', servicePort: '443' }, serviceAccountDir: serviceAccount });
    expect(kc.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
  });

  it('names the missing token instead of falling back to another identity', async () => {
    const serviceAccount = await serviceAccountDir({ 'ca.crt': pki.ca });
    expect(() => loadKubeConfig({ environment: inCluster(), serviceAccountDir: serviceAccount }))
      .toThrow(`there is no service-account token at ${join(serviceAccount, 'token')}`);
    expect(() => loadKubeConfig({ environment: { serviceHost: '127.0.0.1' }, serviceAccountDir: serviceAccount }))
      .toThrow('KUBERNETES_SERVICE_PORT is not');
  });

  it('defaults to the directory the kubelet mounts', () => {
    expect(SERVICE_ACCOUNT_DIR).toBe('/var/run/secrets/kubernetes.io/serviceaccount');
  });
});

describe('loadKubeConfig precedence', () => {
  it('prefers --kubeconfig, then $KUBECONFIG, over the in-cluster config', async () => {
    const serviceAccount = await serviceAccountDir({
      token: 't', 'ca.crt': pki.ca, flag: kubeconfigFile('flag', 'https://flag.example:6443'),
      first: kubeconfigFile('first', 'https://first.example:6443'), second: kubeconfigFile('second', 'https://second.example:6443'),
    });
    const kubeconfig = [join(serviceAccount, 'first'), join(serviceAccount, 'second')].join(delimiter);
    const environment = { ...inCluster(), kubeconfig };
    const chosen = (path?: string) => loadKubeConfig({ path, environment, serviceAccountDir: serviceAccount }).getCurrentCluster()?.server;
    expect(chosen(join(serviceAccount, 'flag'))).toBe('https://flag.example:6443');
    // $KUBECONFIG's files are merged; the first one's current context wins, as with kubectl.
    expect(chosen()).toBe('https://first.example:6443');
    const merged = loadKubeConfig({ environment, serviceAccountDir: serviceAccount });
    expect(merged.getContexts().map((c) => c.name)).toEqual(['first', 'second']);
  });

  it('refuses a --context the kubeconfig does not have', async () => {
    const serviceAccount = await serviceAccountDir({ config: kubeconfigFile('only', 'https://only.example:6443') });
    expect(() => loadKubeConfig({ path: join(serviceAccount, 'config'), context: 'other' })).toThrow('kubeconfig has no context "other" (have: only)');
  });
});

/** A kubeconfig file's content from its parts (each a `name → body` map), as kubectl writes it. */
const kubeconfigOf = (parts: { clusters?: Record<string, object>; users?: Record<string, object>; contexts?: Record<string, object>; current?: string }) => JSON.stringify({
  apiVersion: 'v1', kind: 'Config', 'current-context': parts.current ?? '',
  clusters: Object.entries(parts.clusters ?? {}).map(([name, cluster]) => ({ name, cluster })),
  users: Object.entries(parts.users ?? {}).map(([name, user]) => ({ name, user })),
  contexts: Object.entries(parts.contexts ?? {}).map(([name, context]) => ({ name, context })),
});

describe('$KUBECONFIG with several files', () => {
  it('takes each named entry whole from the first file defining it, and the first current context set', async () => {
    const files = await serviceAccountDir({
      // No current context here: the first one *set* wins, not the first file's.
      a: kubeconfigOf({ clusters: { shared: { server: 'https://a.example:6443' } }, users: { shared: { token: 'from-a' } }, contexts: { a: { cluster: 'shared', user: 'shared' } } }),
      b: kubeconfigOf({
        clusters: { shared: { server: 'https://b.example:6443' }, 'b-only': { server: 'https://b-only.example:6443' } },
        // Not merged into a's "shared" user: with a's token it would be refused as token plus basic auth.
        users: { shared: { username: 'b', password: 'b' } },
        contexts: { b: { cluster: 'shared', user: 'shared', namespace: 'from-b' }, a: { cluster: 'b-only', user: 'shared' } },
        current: 'b',
      }),
      c: kubeconfigOf({ contexts: { c: { cluster: 'b-only', user: 'shared' } }, current: 'c' }),
    });
    const kubeconfig = ['a', 'missing', 'b', 'c'].map((name) => join(files, name)).join(delimiter);
    const kc = loadKubeConfig({ environment: { kubeconfig } });
    expect(kc.getCurrentContext()).toBe('b');
    expect(kc.getContexts().map((c) => c.name)).toEqual(['a', 'b', 'c']);
    expect(kc.getContextObject('a')?.cluster).toBe('shared');
    expect(kc.getCurrentCluster()?.server).toBe('https://a.example:6443');
    expect(kc.getCurrentUser()).toMatchObject({ token: 'from-a', username: undefined });
    const options = { headers: {} };
    await kc.applyToHTTPSOptions(options);
    expect(options.headers).toEqual({ Authorization: 'Bearer from-a' });
  });

  it('skips files that do not exist, and says so when none does', async () => {
    const files = await serviceAccountDir({ only: kubeconfigFile('only', 'https://only.example:6443') });
    expect(loadKubeConfig({ environment: { kubeconfig: [join(files, 'gone'), join(files, 'only')].join(delimiter) } }).getCurrentCluster()?.server)
      .toBe('https://only.example:6443');
    expect(() => loadKubeConfig({ environment: { kubeconfig: join(files, 'gone') } })).toThrow(`none of the files in KUBECONFIG exists (${join(files, 'gone')})`);
  });

  it('names the file that cannot be read as a kubeconfig', async () => {
    const files = await serviceAccountDir({ broken: 'clusters: {not: a list}\n' });
    expect(() => loadKubeConfig({ path: join(files, 'broken') })).toThrow(`kubeconfig ${join(files, 'broken')}: clusters must be a list`);
  });
});

describe('paths in a kubeconfig', () => {
  it('are resolved against the directory of the file that names them', async () => {
    const root = await serviceAccountDir({});
    await mkdir(join(root, 'conf'));
    await writeFile(join(root, 'conf', 'ca.crt'), pki.ca);
    await writeFile(join(root, 'conf', 'token'), 'relative-token\n');
    await writeFile(join(root, 'conf', 'config'), kubeconfigOf({
      clusters: { c: { server: server.url, 'certificate-authority': 'ca.crt' } },
      users: { u: { tokenFile: './token', 'client-certificate': '../certs/u.crt', 'client-key': '/abs/u.key' } },
      contexts: { x: { cluster: 'c', user: 'u' } },
      current: 'x',
    }));
    // Loaded from elsewhere: the working directory must not matter.
    const kc = loadKubeConfig({ path: join(root, 'conf', 'config') });
    expect(kc.getCurrentCluster()?.certificateAuthority).toBe(join(root, 'conf', 'ca.crt'));
    expect(kc.getCurrentUser()).toMatchObject({ tokenFile: join(root, 'conf', 'token'), clientCertificate: join(root, 'certs', 'u.crt'), clientKey: '/abs/u.key' });

    const onlyCaAndToken = kubeconfigOf({
      clusters: { c: { server: server.url, 'certificate-authority': 'ca.crt' } }, users: { u: { tokenFile: 'token' } }, contexts: { x: { cluster: 'c', user: 'u' } }, current: 'x',
    });
    await writeFile(join(root, 'conf', 'config'), onlyCaAndToken);
    const client = createRestClient({ kubeConfig: loadKubeConfig({ environment: { kubeconfig: join(root, 'conf', 'config') } }) });
    expect(await client.request({ method: 'GET', path: '/api' })).toEqual({ authorization: 'Bearer relative-token' });
  });
});

describe('the default kubeconfig', () => {
  it('is ~/.kube/config when neither $KUBECONFIG nor a cluster says otherwise, and its absence is named', async () => {
    const home = await serviceAccountDir({});
    vi.stubEnv('HOME', home);
    const none: KubeEnvironment = {};
    expect(() => loadKubeConfig({ environment: none })).toThrow(`no kubeconfig: pass --kubeconfig, set KUBECONFIG, or create ${join(home, '.kube', 'config')}`);
    await mkdir(join(home, '.kube'));
    await writeFile(join(home, '.kube', 'config'), kubeconfigFile('home', 'https://home.example:6443'));
    expect(loadKubeConfig({ environment: none }).getCurrentCluster()?.server).toBe('https://home.example:6443');
  });

  it('comes from process.env when no environment is passed', async () => {
    const files = await serviceAccountDir({ env: kubeconfigFile('env', 'https://env.example:6443') });
    vi.stubEnv('KUBECONFIG', join(files, 'env'));
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
    expect(loadKubeConfig({}).getCurrentCluster()?.server).toBe('https://env.example:6443');
  });
});

describe('loadKubeConfig: errors keep credentials out', () => {
  it('names a YAML mistake by its position, without quoting the lines around it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loom-kubeconfig-yaml-'));
    try {
      const file = join(dir, 'config');
      await writeFile(file, 'users:\n- name: u\n  user:\n    token: s3cret-t0ken\n  bad: [unclosed\n');
      expect(() => loadKubeConfig({ path: file })).toThrow(/not valid YAML: .* at line \d+, column \d+$/);
      expect(() => loadKubeConfig({ path: file })).not.toThrow(/s3cret/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('loadKubeConfig: a context naming an undefined user', () => {
  it('is refused at load, naming the user and the context', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loom-kubeconfig-user-'));
    try {
      const file = join(dir, 'config');
      await writeFile(file, JSON.stringify({
        apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }], users: [], contexts: [{ name: 'c', context: { cluster: 'c', user: 'ghost' } }],
      }));
      expect(() => loadKubeConfig({ path: file })).toThrow('user "ghost" was not found for context "c"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('loadKubeConfig: insecure-skip-tls-verify with a certificate authority', () => {
  it('is refused at load, as client-go refuses it, instead of silently not verifying against the CA', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loom-kubeconfig-insecure-'));
    const config = (cluster: Record<string, unknown>) => JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443', 'insecure-skip-tls-verify': true, ...cluster } }],
      users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    });
    try {
      const file = join(dir, 'config');
      await writeFile(join(dir, 'ca.crt'), pki.ca);
      for (const ca of [{ 'certificate-authority-data': Buffer.from(pki.ca).toString('base64') }, { 'certificate-authority': 'ca.crt' }]) {
        await writeFile(file, config(ca));
        expect(() => loadKubeConfig({ path: file })).toThrow('cluster "c": specifying a root certificates file with the insecure flag is not allowed');
      }
      await writeFile(file, config({}));
      expect(loadKubeConfig({ path: file }).getCurrentCluster()?.insecureSkipTlsVerify).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
