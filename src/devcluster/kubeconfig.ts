/**
 * Writes the admin kubeconfig for the local control plane, with the certificates inlined so the file
 * works from any directory and outlives nothing but the run directory.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dump } from 'js-yaml';
import type { Pki } from './pki.ts';

const NAME = 'loom-dev';

async function base64Of(path: string): Promise<string> {
  return (await readFile(path)).toString('base64');
}

/**
 * Writes a kubeconfig for `server` (always an IP literal: Node may resolve `localhost` to ::1 while the
 * API server listens on 127.0.0.1 only) authenticating with the admin client certificate.
 */
export async function writeKubeconfig(path: string, server: string, pki: Pki): Promise<void> {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: NAME, cluster: { server, 'certificate-authority-data': await base64Of(pki.caCert) } }],
    users: [{
      name: NAME,
      user: {
        'client-certificate-data': await base64Of(pki.adminCert),
        'client-key-data': await base64Of(pki.adminKey),
      },
    }],
    contexts: [{ name: NAME, context: { cluster: NAME, user: NAME } }],
    'current-context': NAME,
  };
  await writeFile(path, dump(config), { mode: 0o600 });
}
