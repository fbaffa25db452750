/**
 * An exec plugin's credential that the API server refuses (401: revoked, rotated, expired early) is
 * dropped, the plugin is run again, and the request is sent once more with the fresh credential, as
 * client-go refreshes it. Seen by a real HTTPS server that accepts only the tokens a test names and
 * records every Authorization header it gets; the plugin is a script that counts its runs and answers
 * token `t<run>`.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpsServer, testPkis, type TestPki } from '../hooks/tls-pki.test-support.ts';
import { loadKubeConfig } from './kube-config.ts';
import { createRestClient, type RestClient } from './rest-client.ts';

let pki: TestPki;
let cleanupPki: () => Promise<void>;
let server: { url: string; close: () => Promise<void> };
let dir: string;
/** Tokens the server accepts; any other gets 401. */
let accepted: Set<string>;
/** Every Authorization header the server got, in order. */
let seen: (string | undefined)[];

beforeAll(async () => {
  const made = await testPkis(1);
  pki = made.pkis[0]!;
  cleanupPki = made.cleanup;
  server = await httpsServer({
    pki, requireClientCert: false,
    routes: (app) => app.get('/api', (request, reply) => {
      const { authorization } = request.headers;
      seen.push(authorization);
      if (authorization?.startsWith('Bearer ') && accepted.has(authorization.slice('Bearer '.length))) return reply.send({ kind: 'APIVersions' });
      return reply.code(401).send({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', message: 'Unauthorized', code: 401 });
    }),
  });
}, 30_000);

afterAll(async () => {
  await server.close();
  await cleanupPki();
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loom-exec-refresh-'));
  seen = [];
  accepted = new Set();
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A client of the test server as `user`. */
async function clientAs(user: Record<string, unknown>): Promise<RestClient> {
  const path = join(dir, 'config');
  await writeFile(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
    clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(pki.ca).toString('base64') } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
  }));
  return createRestClient({ kubeConfig: loadKubeConfig({ path }) });
}

/** A user whose plugin answers `t1`, then `t2`, ... one more at each run. */
async function countingPluginUser(): Promise<Record<string, unknown>> {
  const script = join(dir, 'plugin.sh');
  const runs = join(dir, 'runs');
  await writeFile(script, `#!/bin/sh\necho run >> "${runs}"\nn=$(wc -l < "${runs}" | tr -d ' ')\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t'$n'"}}'\n`);
  await chmod(script, 0o755);
  return { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: script } };
}

async function pluginRuns(): Promise<number> {
  return (await readFile(join(dir, 'runs'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
}

const get = (client: RestClient): Promise<unknown> => client.request({ method: 'GET', path: '/api' });

describe('an exec credential the API server refuses', () => {
  it('is dropped, the plugin is run again, and the request is sent once more with the fresh credential', async () => {
    accepted = new Set(['t2']);
    const client = await clientAs(await countingPluginUser());
    expect(await get(client)).toEqual({ kind: 'APIVersions' });
    expect(seen).toEqual(['Bearer t1', 'Bearer t2']);
    expect(await pluginRuns()).toBe(2);
  });

  it('refused to many requests at once runs the plugin once more, not once each', async () => {
    accepted = new Set(['t1']);
    const client = await clientAs(await countingPluginUser());
    await get(client);
    accepted = new Set(['t2']);
    expect(await Promise.all(Array.from({ length: 5 }, () => get(client)))).toEqual(Array(5).fill({ kind: 'APIVersions' }));
    expect(await pluginRuns()).toBe(2);
    expect(seen.filter((authorization) => authorization === 'Bearer t1')).toHaveLength(6);
    expect(seen.filter((authorization) => authorization === 'Bearer t2')).toHaveLength(5);
  });

  it('refused again when fresh fails the request with the 401, after one retry', async () => {
    const client = await clientAs(await countingPluginUser());
    await expect(get(client)).rejects.toMatchObject({ status: 401 });
    expect(seen).toEqual(['Bearer t1', 'Bearer t2']);
    expect(await pluginRuns()).toBe(2);
  });

  it('is refreshed for a watch too', async () => {
    accepted = new Set(['t2']);
    const client = await clientAs(await countingPluginUser());
    // The test server answers the watch with a plain JSON object on one line: the watch yields it and ends.
    const events: unknown[] = [];
    for await (const event of client.watch('/api', {}, new AbortController().signal)) events.push(event);
    expect(events).toEqual([{ kind: 'APIVersions' }]);
    expect(seen).toEqual(['Bearer t1', 'Bearer t2']);
  });
});

describe('a credential that is not an exec plugin\'s', () => {
  it('refused is not retried: nothing would give a fresh one', async () => {
    const client = await clientAs({ token: 'static' });
    await expect(get(client)).rejects.toMatchObject({ status: 401 });
    expect(seen).toEqual(['Bearer static']);
  });
});
