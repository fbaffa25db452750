/**
 * Client certificates that rotate (a kubeconfig's certificate files rewritten, an exec plugin's new
 * credential): the next request presents the new certificate, rather than the one the connection pool
 * was built with. The server is a real HTTPS server that asks for a client certificate and reports the
 * one it got; the kubeconfigs are files read by loom's own loader.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPkis, type TestPki } from '../hooks/tls-pki.test-support.ts';
import { loadKubeConfig } from './kube-config.ts';
import { createRestClient } from './rest-client.ts';

let pkis: TestPki[];
let cleanup: () => Promise<void>;
let app: FastifyInstance;
let url: string;
let dir: string;

beforeAll(async () => {
  ({ pkis, cleanup } = await testPkis(2));
  const [first] = pkis as [TestPki, TestPki];
  // Any client certificate is taken and reported: the test is about which one loom presents.
  app = Fastify({ forceCloseConnections: true, https: { key: first.serverKey, cert: first.serverCert, requestCert: true, rejectUnauthorized: false } });
  app.get('/api', (request, reply) => {
    const socket = request.raw.socket as TLSSocket;
    return reply.send({ presented: socket.getPeerCertificate().fingerprint256, port: socket.remotePort });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'loom-client-cert-'));
});

afterAll(async () => {
  await app.close();
  await cleanup();
  await rm(dir, { recursive: true, force: true });
});

/** The fingerprint of a PEM certificate, as the server reports it. */
async function fingerprint(pem: string): Promise<string> {
  const { X509Certificate } = await import('node:crypto');
  return new X509Certificate(pem).fingerprint256;
}

/** Writes a kubeconfig for the server, trusting `pki`'s CA, as `user`; returns its path. */
async function kubeconfigFile(name: string, pki: TestPki, user: Record<string, unknown>): Promise<string> {
  const path = join(dir, `${name}.kubeconfig`);
  await writeFile(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
    clusters: [{ name: 'c', cluster: { server: url, 'certificate-authority-data': Buffer.from(pki.ca).toString('base64') } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
  }));
  return path;
}

/** A client whose kubeconfig reads its client certificate from files in `dir`, named `name`. */
async function clientWithCertFiles(name: string, pki: TestPki) {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  await writeFile(cert, pki.clientCert);
  await writeFile(key, pki.clientKey);
  const kubeConfig = loadKubeConfig({ path: await kubeconfigFile(name, pki, { 'client-certificate': cert, 'client-key': key }) });
  const client = createRestClient({ kubeConfig });
  const ask = () => client.request<{ presented: string; port: number }>({ method: 'GET', path: '/api' });
  return { cert, key, ask };
}

describe('a client certificate that rotates', () => {
  it('is presented from the next request on, by a kubeconfig whose certificate files were rewritten', async () => {
    const [first, second] = pkis as [TestPki, TestPki];
    const { cert, key, ask } = await clientWithCertFiles('rotating', first);
    const presented = async () => (await ask()).presented;

    expect(await presented()).toBe(await fingerprint(first.clientCert));
    await writeFile(cert, second.clientCert);
    await writeFile(key, second.clientKey);
    expect(await presented()).toBe(await fingerprint(second.clientCert));
  });

  it('while it stays the same, keeps using one connection', async () => {
    const { ask } = await clientWithCertFiles('steady', pkis[0]!);
    const ports = [(await ask()).port, (await ask()).port, (await ask()).port];
    expect(new Set(ports).size).toBe(1);
  });

  it('is presented from the next request on, by an exec plugin whose credential expired and changed', async () => {
    const [first, second] = pkis as [TestPki, TestPki];
    const credential = join(dir, 'credential.json');
    // Expired at once, so the plugin is asked again for every request, as after a real expiry.
    const write = (pki: TestPki) => writeFile(credential, JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential',
      status: { clientCertificateData: pki.clientCert, clientKeyData: pki.clientKey, expirationTimestamp: '2000-01-01T00:00:00Z' },
    }));
    await write(first);
    const kubeConfig = loadKubeConfig({
      path: await kubeconfigFile('exec', first, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'cat', args: [credential], interactiveMode: 'Never' } }),
    });
    const client = createRestClient({ kubeConfig });
    const presented = async () => (await client.request<{ presented: string }>({ method: 'GET', path: '/api' })).presented;
    expect(await presented()).toBe(await fingerprint(first.clientCert));
    await write(second);
    expect(await presented()).toBe(await fingerprint(second.clientCert));
  });
});
