import { describe, expect, it } from 'vitest';
import type { ObjectReference, WebhookAuth } from '../api/controller-spec.ts';
import { HookError } from './hook-error.ts';
import {
  authorizationHeader,
  basicAuthHeader,
  credentialKindsOf,
  resolveCredentials,
  webhookAuthPlan,
  type CredentialKind,
  type CredentialReader,
} from './webhook-credentials.ts';

/** The rejection of `promise`, which must reject with an Error. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then((value) => ({ rejected: false, value }), (error: unknown) => ({ rejected: true, value: error }));
  expect(outcome.rejected, `resolved with ${JSON.stringify(outcome.value)}`).toBe(true);
  expect(outcome.value).toBeInstanceOf(Error);
  return outcome.value as Error;
}

type Objects = Record<string, Record<string, string>>;

/** A reader over `objects`, keyed `Kind/namespace/name`; records what it was asked for. */
function reader(objects: Objects): CredentialReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    read(kind: CredentialKind, ref: ObjectReference) {
      const at = `${kind}/${ref.namespace}/${ref.name}`;
      reads.push(at);
      const data = objects[at];
      return Promise.resolve(data && new Map(Object.entries(data).map(([k, v]) => [k, Buffer.from(v)])));
    },
  };
}

const signal = new AbortController().signal;
const where = 'spec.hooks.sync.webhook';

function resolve(auth: WebhookAuth, objects: Objects, https = true) {
  return resolveCredentials(auth, { where, https, reader: reader(objects), signal });
}

const bearer: WebhookAuth = { authorization: { type: 'Bearer', secretRef: { namespace: 'hooks', name: 'token', key: 'token' } } };
const basic: WebhookAuth = { basicAuth: { secretRef: { namespace: 'hooks', name: 'basic' }, usernameKey: 'username', passwordKey: 'password' } };

describe('authorizationHeader', () => {
  it.each<[string, string, string]>([
    ['Bearer', 's3cret', 'Bearer s3cret'],
    ['Bearer', '  s3cret\n', 'Bearer s3cret'],
    ['Token', 'abc.def', 'Token abc.def'],
  ])('%s with %j → %j', (type, secret, header) => {
    expect(authorizationHeader(type, Buffer.from(secret), 'src')).toBe(header);
  });

  it.each<[string, string]>([
    ['', 'src is empty'],
    [' \n ', 'src is empty'],
    ['a\nb', 'src cannot be sent in an HTTP header: it contains control characters'],
  ])('rejects %j', (secret, message) => {
    expect(() => authorizationHeader('Bearer', Buffer.from(secret), 'src')).toThrow(new HookError(message));
  });
});

describe('basicAuthHeader', () => {
  it('encodes trimmed user:pass in base64', () => {
    const header = basicAuthHeader(Buffer.from(' admin\n'), Buffer.from('pa:ss \n'), 'src');
    expect(header).toBe(`Basic ${Buffer.from('admin:pa:ss').toString('base64')}`);
  });

  it('rejects a username containing ":"', () => {
    expect(() => basicAuthHeader(Buffer.from('ad:min'), Buffer.from('x'), 'Secret n/b key "username"')).toThrow(
      'Secret n/b key "username": the username contains ":", which Basic authentication cannot carry',
    );
  });
});

describe('credentialKindsOf', () => {
  const ca = (source: 'inline' | 'secretRef' | 'configMapRef'): WebhookAuth => ({
    caBundle: source === 'inline' ? { inline: 'pem' } : { [source]: { namespace: 'n', name: 'ca', key: 'ca.crt' } },
  });
  const clientTLS: WebhookAuth = { clientTLS: { secretRef: { namespace: 'n', name: 'c' }, certKey: 'tls.crt', privateKeyKey: 'tls.key' } };

  it.each<[string, WebhookAuth, boolean, CredentialKind[]]>([
    ['nothing', {}, true, []],
    ['an inline CA', ca('inline'), true, []],
    ['a CA in a Secret', ca('secretRef'), true, ['Secret']],
    ['a CA in a ConfigMap', ca('configMapRef'), true, ['ConfigMap']],
    ['a CA in a ConfigMap, for http', ca('configMapRef'), false, []],
    ['a client certificate', clientTLS, true, ['Secret']],
    ['a client certificate, for http', clientTLS, false, []],
    ['a token, for http', bearer, false, ['Secret']],
    ['basic auth and a CA in a ConfigMap', { ...basic, ...ca('configMapRef') }, true, ['Secret', 'ConfigMap']],
  ])('%s', (_name, auth, https, kinds) => {
    expect([...credentialKindsOf(auth, https)].sort()).toEqual(kinds.sort());
  });
});

describe('resolveCredentials', () => {
  it('builds a Bearer header from the secret key', async () => {
    await expect(resolve(bearer, { 'Secret/hooks/token': { token: 'abc\n' } })).resolves.toEqual({ authorization: 'Bearer abc' });
  });

  it('builds a Basic header from the username and password keys', async () => {
    const resolved = await resolve(basic, { 'Secret/hooks/basic': { username: 'u', password: 'p' } });
    expect(resolved).toEqual({ authorization: `Basic ${Buffer.from('u:p').toString('base64')}` });
  });

  it('reads the CA bundle and client certificate for https', async () => {
    const auth: WebhookAuth = {
      caBundle: { configMapRef: { namespace: 'hooks', name: 'ca', key: 'ca.crt' } },
      clientTLS: { secretRef: { namespace: 'hooks', name: 'client' }, certKey: 'tls.crt', privateKeyKey: 'tls.key' },
    };
    const resolved = await resolve(auth, { 'ConfigMap/hooks/ca': { 'ca.crt': 'CA' }, 'Secret/hooks/client': { 'tls.crt': 'CERT', 'tls.key': 'KEY' } });
    expect(resolved.authorization).toBeUndefined();
    expect(resolved.tls?.ca).toEqual({ pem: Buffer.from('CA'), source: `ConfigMap hooks/ca key "ca.crt" (${where}.caBundle.configMapRef)` });
    expect(resolved.tls?.clientCert).toEqual({
      cert: Buffer.from('CERT'), key: Buffer.from('KEY'),
      source: `Secret hooks/client keys "tls.crt" and "tls.key" (${where}.clientTLS.secretRef)`,
    });
  });

  it('takes an inline CA bundle as is, reading nothing', async () => {
    const objects = reader({});
    const resolved = await resolveCredentials({ caBundle: { inline: 'PEM' } }, { where, https: true, reader: objects, signal });
    expect(resolved.tls?.ca).toEqual({ pem: Buffer.from('PEM'), source: `${where}.caBundle.inline` });
    expect(objects.reads).toEqual([]);
  });

  it('ignores TLS settings for an http URL and reads none of them', async () => {
    const objects = reader({ 'Secret/hooks/token': { token: 't' } });
    const auth = { ...bearer, caBundle: { secretRef: { namespace: 'hooks', name: 'ca', key: 'ca.crt' } } };
    const resolved = await resolveCredentials(auth, { where, https: false, reader: objects, signal });
    expect(resolved).toEqual({ authorization: 'Bearer t' });
    expect(objects.reads).toEqual(['Secret/hooks/token']);
  });

  it.each<[string, WebhookAuth, Objects, string]>([
    ['a missing token Secret', bearer, {}, `Secret hooks/token (${where}.authorization.secretRef) does not exist`],
    ['a missing token key', bearer, { 'Secret/hooks/token': { other: 'x' } }, `Secret hooks/token has no key "token" (${where}.authorization.secretRef)`],
    ['an empty token', bearer, { 'Secret/hooks/token': { token: '' } }, `Secret hooks/token key "token" (${where}.authorization.secretRef) is empty`],
    ['a missing password key', basic, { 'Secret/hooks/basic': { username: 'u' } }, `Secret hooks/basic has no key "password" (${where}.basicAuth.secretRef)`],
    ['a username with ":"', basic, { 'Secret/hooks/basic': { username: 'a:b', password: 'p' } }, 'the username contains ":"'],
    ['a missing CA ConfigMap', { caBundle: { configMapRef: { namespace: 'hooks', name: 'ca', key: 'ca.crt' } } }, {}, `ConfigMap hooks/ca (${where}.caBundle.configMapRef) does not exist`],
    ['a missing CA key', { caBundle: { secretRef: { namespace: 'hooks', name: 'ca', key: 'ca.pem' } } }, { 'Secret/hooks/ca': { 'ca.crt': 'x' } }, `Secret hooks/ca has no key "ca.pem" (${where}.caBundle.secretRef)`],
    ['a missing private key', { clientTLS: { secretRef: { namespace: 'hooks', name: 'c' }, certKey: 'tls.crt', privateKeyKey: 'tls.key' } }, { 'Secret/hooks/c': { 'tls.crt': 'x' } }, `Secret hooks/c has no key "tls.key" (${where}.clientTLS.secretRef)`],
  ])('fails with a HookError for %s', async (_name, auth, objects, message) => {
    const error = await failure(resolve(auth, objects));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toContain(message);
  });

  it('never quotes a secret value in an error', async () => {
    const error = await failure(resolve(bearer, { 'Secret/hooks/token': { token: 'top\nsecret' } }));
    expect(error.message).not.toMatch(/top|secret\b/);
  });

  it('fails when settings refer to a Secret and there is no reader', async () => {
    const error = await failure(resolveCredentials(bearer, { where, https: true, reader: undefined, signal }));
    expect(error).toBeInstanceOf(HookError);
  });
});

describe('webhookAuthPlan', () => {
  const bearer = { authorization: { type: 'Bearer', secretRef: { namespace: 'hooks', name: 'token', key: 'token' } } };
  const ca = { caBundle: { configMapRef: { namespace: 'hooks', name: 'ca', key: 'ca.crt' } } };

  it('uses the webhook\'s own settings, and counts TLS settings only for https (in any case)', () => {
    expect(webhookAuthPlan('sync', { url: 'HTTPS://hook.example:443/sync', ...ca }, [])).toMatchObject({ where: 'spec.hooks.sync.webhook', kinds: new Set(['ConfigMap']) });
    expect(webhookAuthPlan('sync', { url: 'http://hook.example/sync', ...ca }, []).kinds).toEqual(new Set());
  });

  it('falls back to the first matching endpoint config', () => {
    const plan = webhookAuthPlan('customize', { url: 'http://hook.example/c' }, [{ host: 'other' }, { host: 'hook.example', ...bearer }]);
    expect(plan).toMatchObject({ where: 'spec.endpointConfigs[1]', kinds: new Set(['Secret']), auth: bearer });
  });
});
