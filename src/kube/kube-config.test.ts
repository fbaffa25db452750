/**
 * Which kubeconfig loom uses, and the in-cluster path a Pod takes: a service-account directory (here a
 * temporary one standing in for /var/run/secrets/kubernetes.io/serviceaccount) and the
 * `KUBERNETES_SERVICE_HOST`/`PORT` the kubelet sets. The requests go to a real HTTPS server whose
 * certificate only the directory's `ca.crt` verifies, and the token is read again once it rotates.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpsServer, testPkis, type TestPki } from '../hooks/tls-pki.test-support.ts';
import { loadKubeConfig, SERVICE_ACCOUNT_DIR } from './kube-config.ts';
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
}, 30_000);

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
