/**
 * Certificates for the TLS tests, made with `openssl` by the dev cluster's PKI code in a temp dir: a
 * CA, a serving certificate for 127.0.0.1 and a client certificate, read back as PEM; plus an HTTPS
 * fastify server that can require a client certificate.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPki } from '../devcluster/pki.ts';

/** One PKI as PEM text. */
export interface TestPki {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A key that belongs to no certificate here. */
  strayKey: string;
}

/** Makes `count` independent PKIs; `cleanup` removes their files. */
export async function testPkis(count: number): Promise<{ pkis: TestPki[]; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'loom-tls-'));
  const pkis = await Promise.all(Array.from({ length: count }, async (_, i) => {
    const paths = await createPki(join(dir, String(i)));
    const read = (path: string) => readFile(path, 'utf8');
    return {
      ca: await read(paths.caCert),
      serverCert: await read(paths.servingCert),
      serverKey: await read(paths.servingKey),
      clientCert: await read(paths.adminCert),
      clientKey: await read(paths.adminKey),
      strayKey: await read(paths.serviceAccountKey),
    };
  }));
  return { pkis, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Options of {@link httpsServer}. */
export interface HttpsServerOptions {
  pki: TestPki;
  /** Demand a client certificate signed by the PKI's CA. */
  requireClientCert: boolean;
  routes: (app: FastifyInstance) => void;
}

/** An HTTPS fastify app on 127.0.0.1; resolves to its base URL and its closer. */
export async function httpsServer(options: HttpsServerOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const { pki, requireClientCert } = options;
  const app = Fastify({
    forceCloseConnections: true,
    https: { key: pki.serverKey, cert: pki.serverCert, ca: pki.ca, requestCert: requireClientCert, rejectUnauthorized: requireClientCert },
  });
  options.routes(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
}
