import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectReference, WebhookAuth } from '../api/controller-spec.ts';
import { MAX_MESSAGE_CHARS } from '../api/bounded-text.ts';
import { HookError } from './hook-error.ts';
import { hookServers } from './hook-server.test-support.ts';
import { httpPost } from './http-post.ts';
import { httpsServer, testPkis, type TestPki } from './tls-pki.test-support.ts';
import type { CredentialKind, CredentialReader } from './webhook-credentials.ts';
import { createWebhookRunner, type WebhookRunner } from './webhook-runner.ts';
import type { WebhookSecurity } from './webhook-transport.ts';

/** The rejection of `promise`, which must reject with an Error. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then((value) => ({ rejected: false, value }), (error: unknown) => ({ rejected: true, value: error }));
  expect(outcome.rejected, `resolved with ${JSON.stringify(outcome.value)}`).toBe(true);
  expect(outcome.value).toBeInstanceOf(Error);
  return outcome.value as Error;
}

let pki: TestPki;
let other: TestPki;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const made = await testPkis(2);
  [pki, other] = made.pkis as [TestPki, TestPki];
  cleanup = made.cleanup;
});
afterAll(() => cleanup());

const servers = hookServers();
const closers: (() => Promise<void>)[] = [];
const runners: WebhookRunner[] = [];
afterEach(async () => {
  for (const runner of runners.splice(0)) runner.close();
  await Promise.all([servers.closeAll(), ...closers.splice(0).map((close) => close())]);
});

const request = { controller: {}, parent: { kind: 'Widget', metadata: { name: 'web', namespace: 'default' } }, children: {} };
const signal = new AbortController().signal;
const where = 'spec.hooks.sync.webhook';

/** A reader over mutable `objects` (`Kind/namespace/name` → data), so tests can rotate values. */
function reader(objects: Record<string, Record<string, string>>): CredentialReader {
  return {
    read: (kind: CredentialKind, ref: ObjectReference) => {
      const data = objects[`${kind}/${ref.namespace}/${ref.name}`];
      return Promise.resolve(data && new Map(Object.entries(data).map(([k, v]) => [k, Buffer.from(v)])));
    },
  };
}

function runner(url: string, security?: WebhookSecurity, timeoutMs = 5_000): WebhookRunner {
  const created = createWebhookRunner({ url, timeoutMs, hook: 'sync', clock: { now: () => 0 }, security });
  runners.push(created);
  return created;
}

interface Seen {
  authorization: string | undefined;
  remotePort: number | undefined;
}

/** Routes answering `{ok: true}` and recording the Authorization header and the client's port. */
function recording(seen: Seen[]) {
  return (app: FastifyInstance) => {
    app.post('/sync', (req) => {
      seen.push({ authorization: req.headers.authorization, remotePort: req.socket.remotePort });
      return { ok: true };
    });
  };
}

async function https(requireClientCert: boolean, seen: Seen[] = []): Promise<string> {
  const server = await httpsServer({ pki, requireClientCert, routes: recording(seen) });
  closers.push(server.close);
  return `${server.url}/sync`;
}

const token: WebhookAuth = { authorization: { type: 'Bearer', secretRef: { namespace: 'hooks', name: 'token', key: 'token' } } };
const caFromSecret: WebhookAuth = { caBundle: { secretRef: { namespace: 'hooks', name: 'tls', key: 'ca.crt' } } };
const clientTLS: WebhookAuth = { clientTLS: { secretRef: { namespace: 'hooks', name: 'tls' }, certKey: 'tls.crt', privateKeyKey: 'tls.key' } };

describe('webhook runner: Authorization', () => {
  it('sends the token header, and a rotated token on the next call', async () => {
    const seen: Seen[] = [];
    const base = await servers.fastify(recording(seen));
    const objects = { 'Secret/hooks/token': { token: 'one\n' } };
    const hook = runner(`${base}/sync`, { auth: token, where, reader: reader(objects) });
    await expect(hook.call(request, signal)).resolves.toEqual({ ok: true });
    objects['Secret/hooks/token'] = { token: 'two' };
    await hook.call(request, signal);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer one', 'Bearer two']);
  });

  it('sends Basic credentials', async () => {
    const seen: Seen[] = [];
    const base = await servers.fastify(recording(seen));
    const auth: WebhookAuth = { basicAuth: { secretRef: { namespace: 'hooks', name: 'basic' }, usernameKey: 'user', passwordKey: 'pass' } };
    const hook = runner(`${base}/sync`, { auth, where, reader: reader({ 'Secret/hooks/basic': { user: 'loom', pass: 'pw' } }) });
    await hook.call(request, signal);
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from('loom:pw').toString('base64')}`);
  });

  it('fails the call without sending it when the Secret is missing', async () => {
    const seen: Seen[] = [];
    const base = await servers.fastify(recording(seen));
    const error = await failure(runner(`${base}/sync`, { auth: token, where, reader: reader({}) }).call(request, signal));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toMatch(/^sync hook POST http:\/\/127\.0\.0\.1:\d+\/sync: Secret hooks\/token \(spec\.hooks\.sync\.webhook\.authorization\.secretRef\) does not exist$/);
    expect(seen).toEqual([]);
  });

  it('cuts a huge message of a failed credential read', async () => {
    const failing: CredentialReader = { read: () => Promise.reject(new Error(`the API server said: ${'y'.repeat(1_000_000)}`)) };
    const error = await failure(runner('http://127.0.0.1:9/sync', { auth: token, where, reader: failing }).call(request, signal));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toMatch(/^sync hook POST http:\/\/127\.0\.0\.1:9\/sync: .*the API server said: y+… \(\d+ more characters\)$/);
    expect(error.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
  });

  it('times out a credential read that never ends', async () => {
    const hanging: CredentialReader = { read: (_kind, _ref, s) => new Promise((_resolve, reject) => s.addEventListener('abort', () => reject(s.reason as Error))) };
    const error = await failure(runner('http://127.0.0.1:9/sync', { auth: token, where, reader: hanging }, 100).call(request, signal));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toContain('timed out after 100 ms');
  });

  it('cannot be made to override the framing headers', async () => {
    const heads: string[] = [];
    const base = await servers.fastify((app) => {
      app.post('/x', (req) => {
        heads.push(`${req.headers['content-type']} ${req.headers['content-length']} ${req.headers.authorization}`);
        return {};
      });
    });
    const headers = { 'content-type': 'text/plain', 'CONTENT-LENGTH': '1', Authorization: 'Bearer t' };
    await httpPost({ url: new URL(`${base}/x`), body: Buffer.from('{}'), signal, maxResponseBytes: 100, headers });
    expect(heads).toEqual(['application/json 2 Bearer t']);
  });
});

describe('webhook runner: TLS', () => {
  it('trusts the CA bundle, and nothing but it', async () => {
    const url = await https(false);
    await expect(runner(url, { auth: { caBundle: { inline: pki.ca } }, where }).call(request, signal)).resolves.toEqual({ ok: true });
    const untrusted = await failure(runner(url).call(request, signal));
    expect(untrusted).toBeInstanceOf(HookError);
    expect((untrusted.cause as NodeJS.ErrnoException).code).toMatch(/CERT|SIGNED|ISSUER/);
    const wrongCa = await failure(runner(url, { auth: { caBundle: { inline: other.ca } }, where }).call(request, signal));
    expect(wrongCa).toBeInstanceOf(HookError);
    expect(wrongCa.message).toMatch(/certificate/i);
  });

  it('presents the client certificate from the Secret', async () => {
    const url = await https(true);
    const objects = { 'Secret/hooks/tls': { 'ca.crt': pki.ca, 'tls.crt': pki.clientCert, 'tls.key': pki.clientKey } };
    const hook = runner(url, { auth: { ...caFromSecret, ...clientTLS }, where, reader: reader(objects) });
    await expect(hook.call(request, signal)).resolves.toEqual({ ok: true });
    const without = await failure(runner(url, { auth: caFromSecret, where, reader: reader(objects) }).call(request, signal));
    expect(without).toBeInstanceOf(HookError);
  });

  it('reuses the connection while the material is unchanged and reconnects when it rotates', async () => {
    const seen: Seen[] = [];
    const url = await https(false, seen);
    const objects = { 'Secret/hooks/tls': { 'ca.crt': pki.ca } };
    const hook = runner(url, { auth: caFromSecret, where, reader: reader(objects) });
    await hook.call(request, signal);
    await hook.call(request, signal);
    objects['Secret/hooks/tls'] = { 'ca.crt': `${pki.ca}\n${other.ca}` };
    await hook.call(request, signal);
    const [first, second, third] = seen.map((s) => s.remotePort);
    expect(second).toBe(first);
    expect(third).not.toBe(first);
  });

  it('fails a call whose CA from a Secret does not parse, naming the Secret', async () => {
    const url = await https(false);
    const hook = runner(url, { auth: caFromSecret, where, reader: reader({ 'Secret/hooks/tls': { 'ca.crt': 'not pem' } }) });
    const error = await failure(hook.call(request, signal));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toContain('caBundle from Secret hooks/tls key "ca.crt" (spec.hooks.sync.webhook.caBundle.secretRef) holds no PEM certificate');
  });

  it('ignores TLS settings for an http URL', async () => {
    const seen: Seen[] = [];
    const base = await servers.fastify(recording(seen));
    await expect(runner(`${base}/sync`, { auth: { caBundle: { inline: 'not pem' } }, where }).call(request, signal)).resolves.toEqual({ ok: true });
  });
});

describe('createWebhookRunner: security settings', () => {
  it('rejects an inline CA bundle that does not parse at once', () => {
    expect(() => runner('https://hooks.example/sync', { auth: { caBundle: { inline: 'nope' } }, where })).toThrow(
      'caBundle from spec.hooks.sync.webhook.caBundle.inline holds no PEM certificate',
    );
  });

  it('rejects settings that refer to a Secret without a reader at once', () => {
    expect(() => runner('https://hooks.example/sync', { auth: token, where })).toThrow(HookError);
  });

  it('fails calls after close', async () => {
    const hook = runner('http://127.0.0.1:9/sync');
    hook.close();
    await expect(hook.call(request, signal)).rejects.toThrow('the runner is closed');
  });
});
