/**
 * What a request carries for each kind of kubeconfig user and cluster, seen by a real HTTPS server
 * that reports the headers it got: basic auth, a token file preferred over an inline token, the
 * impersonation headers, an exec plugin run on the first request and not at load, TLS settings
 * (server name, skipped verification), and the combinations that are refused at load.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpsServer, testPkis, type TestPki } from '../hooks/tls-pki.test-support.ts';
import { loadKubeConfig } from './kube-config.ts';
import { createRestClient } from './rest-client.ts';

let pki: TestPki;
let cleanupPki: () => Promise<void>;
let server: { url: string; close: () => Promise<void> };
let dir: string;

beforeAll(async () => {
  const made = await testPkis(1);
  pki = made.pkis[0]!;
  cleanupPki = made.cleanup;
  server = await httpsServer({
    pki, requireClientCert: false,
    routes: (app) => app.get('/headers', (request, reply) => reply.send({
      authorization: request.headers.authorization,
      user: request.headers['impersonate-user'],
      groups: request.headers['impersonate-group'],
      extra: request.headers['impersonate-extra-reviewed%2fby'],
    })),
  });
});

afterAll(async () => {
  await server.close();
  await cleanupPki();
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loom-credentials-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a kubeconfig with one cluster (the test server, its CA inline, plus `cluster`) and one `user`. */
async function kubeconfig(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): Promise<string> {
  const path = join(dir, 'config');
  await writeFile(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
    clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(pki.ca).toString('base64'), ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
  }));
  return path;
}

interface Seen {
  authorization?: string;
  user?: string;
  groups?: string;
  extra?: string;
}

async function seenBy(user: Record<string, unknown>, cluster?: Record<string, unknown>): Promise<Seen> {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: await kubeconfig(user, cluster) }) });
  return client.request<Seen>({ method: 'GET', path: '/headers' });
}

describe('a kubeconfig user', () => {
  it('with username and password sends basic auth', async () => {
    expect((await seenBy({ username: 'alice', password: 's3cret:x' })).authorization).toBe(`Basic ${Buffer.from('alice:s3cret:x').toString('base64')}`);
  });

  it('with a token file sends the file\'s token, and the inline token only while the file cannot be read', async () => {
    await writeFile(join(dir, 'token'), 'from-file\n');
    expect((await seenBy({ token: 'inline', tokenFile: join(dir, 'token') })).authorization).toBe('Bearer from-file');
    expect((await seenBy({ token: 'inline', tokenFile: join(dir, 'gone') })).authorization).toBe('Bearer inline');
  });

  it('sends no credentials when it has none', async () => {
    expect((await seenBy({})).authorization).toBeUndefined();
  });

  it('asks to impersonate the user, groups and extra attributes it names', async () => {
    const seen = await seenBy({ token: 't', as: 'bob', 'as-groups': ['dev', 'ops'], 'as-user-extra': { 'reviewed/by': ['carol'] } });
    expect(seen).toEqual({ authorization: 'Bearer t', user: 'bob', groups: 'dev, ops', extra: 'carol' });
  });

  it('with an exec plugin runs it on the first request, not at load, finding a relative command next to the kubeconfig', async () => {
    const ran = join(dir, 'ran');
    await writeFile(join(dir, 'plugin.sh'), `#!/bin/sh\ntouch "${ran}"\necho '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"from-plugin"}}'\n`);
    await chmod(join(dir, 'plugin.sh'), 0o755);
    const kubeConfig = loadKubeConfig({ path: await kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: './plugin.sh' } }) });
    const client = createRestClient({ kubeConfig });
    await expect(readFile(ran)).rejects.toThrow('ENOENT');
    expect((await client.request<Seen>({ method: 'GET', path: '/headers' })).authorization).toBe('Bearer from-plugin');
    await expect(readFile(ran)).resolves.toBeDefined();
  });

  it('whose exec plugin fails makes the request fail with the plugin\'s error', async () => {
    const user = { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', 'echo "please log in" >&2; exit 1'] } };
    await expect(seenBy(user)).rejects.toThrow('exec plugin sh failed with exit code 1 (it wrote 14 bytes to stderr, not quoted here as they may hold credentials; run the command to see its output)');
  });

  it('is refused at load when its credentials contradict each other or cannot be used', async () => {
    const load = async (user: Record<string, unknown>) => loadKubeConfig({ path: await kubeconfig(user) });
    await expect(load({ token: 't', username: 'u', password: 'p' })).rejects.toThrow('user "u": username/password and a bearer token may not both be set');
    await expect(load({ 'client-certificate-data': 'Y2VydA==' })).rejects.toThrow('a client certificate needs its key');
    await expect(load({ 'auth-provider': { name: 'keystone' } })).rejects.toThrow('auth-provider "keystone" is not supported');
    await expect(load({ exec: { apiVersion: 'client.authentication.k8s.io/v1alpha1', command: 'x' } })).rejects.toThrow('is not supported');
  });
});

describe('a kubeconfig cluster', () => {
  it('checks the server certificate against tls-server-name when it has one', async () => {
    expect((await seenBy({ token: 't' }, { 'tls-server-name': 'localhost' })).authorization).toBe('Bearer t');
    await expect(seenBy({ token: 't' }, { 'tls-server-name': 'wrong.example' })).rejects.toThrow('wrong.example');
  });

  it('with insecure-skip-tls-verify talks to a server no CA it has vouches for', async () => {
    await expect(seenBy({ token: 't' }, { 'certificate-authority-data': undefined })).rejects.toThrow();
    expect((await seenBy({ token: 't' }, { 'certificate-authority-data': undefined, 'insecure-skip-tls-verify': true })).authorization).toBe('Bearer t');
  });
});

describe('a legacy auth-provider user', () => {
  it('is authenticated through client-node, which refreshes nothing while the oidc id-token is valid', async () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const idToken = `${part({ alg: 'none' })}.${part({ exp: Math.floor(Date.now() / 1000) + 3600 })}.sig`;
    const seen = await seenBy({ 'auth-provider': { name: 'oidc', config: { 'id-token': idToken, 'client-id': 'loom', 'idp-issuer-url': 'https://issuer.example' } } });
    expect(seen.authorization).toBe(`Bearer ${idToken}`);
  });
});
