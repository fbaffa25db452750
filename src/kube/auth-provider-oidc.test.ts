/**
 * A legacy `auth-provider: oidc` user whose id-token has expired: the token is refreshed through
 * `@kubernetes/client-node` against the user's OpenID Connect issuer, and requests carry the refreshed
 * token. The issuer is a small HTTPS server (discovery document and token endpoint); the API server
 * stands in as a second HTTPS server that reports the Authorization header it got. What is tested is
 * the refresh, not Kubernetes, so no control plane is needed.
 *
 * The provider requires HTTPS, and with client-node 2.0.1 it can only trust the issuer through Node's
 * own trust store: given `idp-certificate-authority(-data)` it fetches with a stand-in for `Response`
 * that openid-client refuses. So the loom side runs in a child Node process whose
 * `NODE_EXTRA_CA_CERTS` holds the test CA.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsServer, testPkis, type TestPki } from '../hooks/tls-pki.test-support.ts';

let pki: TestPki;
let cleanupPki: () => Promise<void>;
let apiServer: { url: string; close: () => Promise<void> };
let issuer: { url: string; close: () => Promise<void> };
let dir: string;
/** The form bodies the token endpoint got. */
const tokenRequests: Record<string, string>[] = [];

const CLIENT_ID = 'loom';
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An RS256 id-token from the test issuer, expiring at `exp` (seconds since the epoch). */
function idToken(exp: number): string {
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss: issuer.url, aud: CLIENT_ID, sub: 'alice', iat: 1_700_000_000, exp })}`;
  return `${unsigned}.${sign('sha256', Buffer.from(unsigned), privateKey).toString('base64url')}`;
}

/** Long past, and far ahead, so the test reads no clock. */
const EXPIRED = 1_700_000_100;
const VALID_UNTIL = 4_102_444_800;

beforeAll(async () => {
  const made = await testPkis(1);
  pki = made.pkis[0]!;
  cleanupPki = made.cleanup;
  dir = await mkdtemp(join(tmpdir(), 'loom-oidc-'));
  apiServer = await httpsServer({ pki, requireClientCert: false, routes: (app) => app.get('/headers', (request, reply) => reply.send({ authorization: request.headers.authorization })) });
  issuer = await httpsServer({
    pki, requireClientCert: false,
    routes: (app) => {
      app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))));
      app.get('/.well-known/openid-configuration', () => ({
        issuer: issuer.url, token_endpoint: `${issuer.url}/token`, jwks_uri: `${issuer.url}/jwks`, authorization_endpoint: `${issuer.url}/authorize`,
        response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'],
      }));
      app.post('/token', (request, reply) => {
        const form = request.body as Record<string, string>;
        tokenRequests.push(form);
        if (form.grant_type !== 'refresh_token' || form.refresh_token !== 'refresh-1') return reply.code(400).send({ error: 'invalid_grant' });
        return reply.send({ access_token: 'access-2', token_type: 'Bearer', expires_in: 3600, refresh_token: 'refresh-2', id_token: idToken(VALID_UNTIL) });
      });
    },
  });
}, 30_000);

afterAll(async () => {
  await apiServer.close();
  await issuer.close();
  await cleanupPki();
  await rm(dir, { recursive: true, force: true });
});

describe('an auth-provider oidc user with an expired id-token', () => {
  it('has it refreshed at the issuer with its refresh-token, and sends the refreshed id-token, refreshing once', async () => {
    const path = join(dir, 'config');
    const expired = idToken(EXPIRED);
    await writeFile(path, JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
      clusters: [{ name: 'c', cluster: { server: apiServer.url, 'certificate-authority-data': Buffer.from(pki.ca).toString('base64') } }],
      users: [{ name: 'u', user: { 'auth-provider': { name: 'oidc', config: {
        'client-id': CLIENT_ID, 'id-token': expired, 'refresh-token': 'refresh-1', 'idp-issuer-url': issuer.url,
      } } } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    }));
    const [first, second] = await twoRequestsAs(path);
    const refreshed = first?.authorization?.replace(/^Bearer /, '');
    expect(refreshed).not.toBe(expired);
    expect(JSON.parse(Buffer.from(refreshed!.split('.')[1]!, 'base64url').toString('utf8'))).toMatchObject({ sub: 'alice', exp: VALID_UNTIL });
    expect(tokenRequests).toEqual([expect.objectContaining({ grant_type: 'refresh_token', refresh_token: 'refresh-1' })]);
    expect(second).toEqual(first);
    expect(tokenRequests).toHaveLength(1);
  }, 90_000); // A fresh Node process loading client-node: seconds on a loaded machine, so a generous bound.
});

const SRC = resolve(import.meta.dirname, '..');

/** What the test API server reported for two requests made, one after the other, by a loom client with the kubeconfig at `path`. */
async function twoRequestsAs(path: string): Promise<{ authorization?: string }[]> {
  const ca = join(dir, 'ca.crt');
  await writeFile(ca, pki.ca);
  const script = `
    const { loadKubeConfig } = await import(${JSON.stringify(pathToFileURL(join(SRC, 'kube/kube-config.ts')).href)});
    const { createRestClient } = await import(${JSON.stringify(pathToFileURL(join(SRC, 'kube/rest-client.ts')).href)});
    const client = createRestClient({ kubeConfig: loadKubeConfig({ path: ${JSON.stringify(path)} }) });
    const first = await client.request({ method: 'GET', path: '/headers' });
    const second = await client.request({ method: 'GET', path: '/headers' });
    console.log(JSON.stringify([first, second]));
  `;
  // Asynchronous: the servers answering the child run in this process.
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd: resolve(SRC, '..'), env: { ...process.env, NODE_EXTRA_CA_CERTS: ca }, timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { authorization?: string }[];
}
