/**
 * Webhook TLS, authentication and ETag mode against the real control plane (docs/hook-protocol.md,
 * "Webhook TLS, authentication and ETag"): an HTTPS hook that demands a client certificate and a bearer
 * token. The right credentials create the children; a wrong CA or token is a `SyncError` with nothing
 * written; a rotated token Secret is used by the next sync without touching the CompositeController; a
 * 304 answer reuses the cached response.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createPki } from '../src/devcluster/pki.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP } from './support/test-crd.ts';

const LABEL = 'webhook-tls';
const PARENT = { plural: 'tlshooks', kind: 'TlsHook' };
/** Which CompositeController a parent goes to (label `tls-controller`). */
type Via = 'good' | 'wrongca' | 'wrongtoken' | 'etag';

interface SyncRequest {
  parent: KubeObject & { spec: { color: string } };
}
interface HookCall {
  parent: string;
  authorization: string | undefined;
  status: number;
}

let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let namespace: string;
let pkiDir: string;
/** The only token the hook accepts; the test rotates it. */
let acceptedToken = 'token-one';
const calls: HookCall[] = [];

const b64 = (text: string) => Buffer.from(text).toString('base64');

function answer(parent: SyncRequest['parent']) {
  const name = parent.metadata.name!;
  const { color } = parent.spec;
  return {
    status: { color },
    children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-child`, labels: { tlshook: name } }, data: { color } }],
  };
}

/** Answers when the token is right; in ETag mode (`/etag`), 304 when the client already holds this colour. */
function sync(req: FastifyRequest, reply: FastifyReply, etagMode: boolean) {
  const { parent } = req.body as SyncRequest;
  const record = (status: number) => calls.push({ parent: parent.metadata.name!, authorization: req.headers.authorization, status });
  if (req.headers.authorization !== `Bearer ${acceptedToken}`) {
    record(401);
    return reply.code(401).type('text/plain').send('bad token');
  }
  const etag = `"${parent.spec.color}"`;
  if (etagMode && req.headers['if-none-match'] === etag) {
    record(304);
    return reply.code(304).send();
  }
  record(200);
  return reply.header('ETag', etag).send(answer(parent));
}

async function startHook(pki: { ca: string; cert: string; key: string }): Promise<string> {
  hook = Fastify({ https: { ca: pki.ca, cert: pki.cert, key: pki.key, requestCert: true, rejectUnauthorized: true } });
  hook.post('/sync', (req, reply) => sync(req, reply, false));
  hook.post('/etag', (req, reply) => sync(req, reply, true));
  return hook.listen({ host: '127.0.0.1', port: 0 });
}

const secretRef = (name: string) => ({ name, namespace });

function controller(via: Via, url: string): KubeObject {
  const ca = via === 'wrongca' ? 'wrong-ca' : 'hook-tls';
  const token = via === 'wrongtoken' ? 'wrong-token' : 'hook-token';
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: `tls-${via}`, labels: { 'loom-test': LABEL } },
    spec: {
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: PARENT.plural, labelSelector: { matchLabels: { 'tls-controller': via } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: {
        sync: {
          webhook: {
            url: via === 'etag' ? `${url}/etag` : `${url}/sync`,
            caBundle: { secretRef: { ...secretRef(ca), key: 'ca.crt' } },
            clientTLS: { secretRef: secretRef('hook-tls') },
            authorization: { secretRef: { ...secretRef(token), key: 'token' } },
            ...(via === 'etag' ? { etag: { enabled: true, cacheTimeoutSeconds: 600 } } : {}),
          },
        },
      },
    },
  };
}

function secret(name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) };
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), 'webhook-tls');
  await createParentCrd(clients, PARENT);
  pkiDir = await mkdtemp(join(tmpdir(), 'loom-webhook-tls-'));
  const [pki, wrong] = await Promise.all([createPki(join(pkiDir, 'hook')), createPki(join(pkiDir, 'wrong'))]);
  const read = (path: string) => readFile(path, 'utf8');
  const url = await startHook({ ca: await read(pki.caCert), cert: await read(pki.servingCert), key: await read(pki.servingKey) });
  await clients.apply(secret('hook-tls', { 'ca.crt': await read(pki.caCert), 'tls.crt': await read(pki.adminCert), 'tls.key': await read(pki.adminKey) }));
  await clients.apply(secret('wrong-ca', { 'ca.crt': await read(wrong.caCert) }));
  await clients.apply(secret('hook-token', { token: `${acceptedToken}\n` }));
  await clients.apply(secret('wrong-token', { token: 'not-the-token' }));
  loom = await startTestLoom(LABEL);
  for (const via of ['good', 'wrongca', 'wrongtoken', 'etag'] as const) await clients.apply(controller(via, url));
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
  if (pkiDir) await rm(pkiDir, { recursive: true, force: true });
});

const parentRef = (name: string) => ({ apiVersion: `${TEST_GROUP}/v1`, kind: PARENT.kind, namespace, name });
const childRef = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-child` });

function applyParent(name: string, via: Via, color: string, annotations: Record<string, string> = {}): Promise<KubeObject> {
  return clients.apply({
    ...parentRef(name),
    metadata: { name, namespace, labels: { 'tls-controller': via }, annotations },
    spec: { selector: { matchLabels: { tlshook: name } }, color },
  });
}

const colorOf = (obj: KubeObject | undefined): string | undefined => ((obj?.data ?? obj?.status) as { color?: string } | undefined)?.color;

async function converged(name: string, color: string): Promise<KubeObject> {
  return eventually(async () => {
    const [parent, child] = await Promise.all([clients.writer.get(parentRef(name)), clients.writer.get(childRef(name))]);
    return colorOf(parent) === color && colorOf(child) === color ? child : undefined;
  }, `${name}: status and child showing ${color}`);
}

async function syncErrors(name: string): Promise<string[]> {
  const list = await clients.client.request<{ items: { reason?: string; type?: string; message?: string; involvedObject: { kind?: string } }[] }>({
    method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, query: { fieldSelector: `involvedObject.name=${name}` },
  });
  return list.items.filter((e) => e.reason === 'SyncError' && e.type === 'Warning' && e.involvedObject.kind === PARENT.kind).map((e) => e.message ?? '');
}

function syncErrorMatching(name: string, pattern: RegExp): Promise<string> {
  return eventually(async () => (await syncErrors(name)).find((m) => pattern.test(m)), `a SyncError event on ${name} matching ${pattern}`);
}

describe('webhook TLS and authentication', () => {
  it('creates the children over mutual TLS with the bearer token', async () => {
    await applyParent('good', 'good', 'blue');
    await converged('good', 'blue');
    expect(calls.filter((c) => c.parent === 'good' && c.status === 200).map((c) => c.authorization)).toContain('Bearer token-one');
    expect(await syncErrors('good')).toEqual([]);
  });

  it('records a SyncError and writes nothing when the CA does not match the server', async () => {
    await applyParent('wrong-ca', 'wrongca', 'blue');
    const message = await syncErrorMatching('wrong-ca', /certificate/i);
    expect(message).toContain('sync hook POST https://127.0.0.1:');
    expect(calls.filter((c) => c.parent === 'wrong-ca')).toEqual([]);
    expect(await clients.writer.get(childRef('wrong-ca'))).toBeUndefined();
    expect(colorOf(await clients.writer.get(parentRef('wrong-ca')))).toBeUndefined();
  });

  it('records a SyncError and writes nothing when the token is wrong', async () => {
    await applyParent('wrong-token', 'wrongtoken', 'blue');
    const message = await syncErrorMatching('wrong-token', /HTTP 401/);
    expect(message).toContain('bad token');
    expect(await clients.writer.get(childRef('wrong-token'))).toBeUndefined();
    expect(colorOf(await clients.writer.get(parentRef('wrong-token')))).toBeUndefined();
  });

  it('uses a rotated token Secret on the next sync without touching the CompositeController', async () => {
    await applyParent('rotate', 'good', 'red');
    const before = await converged('rotate', 'red');
    const controllerBefore = await clients.writer.get({ apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', name: 'tls-good' });
    acceptedToken = 'token-two';
    await clients.apply(secret('hook-token', { token: 'token-two' }));
    await applyParent('rotate', 'good', 'green');
    const after = await converged('rotate', 'green');
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(calls.filter((c) => c.parent === 'rotate' && c.status === 200).map((c) => c.authorization)).toContain('Bearer token-two');
    const controllerAfter = await clients.writer.get({ apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', name: 'tls-good' });
    expect(controllerAfter?.metadata.resourceVersion).toBe(controllerBefore?.metadata.resourceVersion);
  });
});

describe('webhook ETag mode', () => {
  it('reuses the cached response when the hook answers 304, keeping the children', async () => {
    await applyParent('cached', 'etag', 'violet');
    const child = await converged('cached', 'violet');
    // Same spec, new annotation: the sync runs again and the hook finds the ETag it sent.
    await applyParent('cached', 'etag', 'violet', { poke: '1' });
    await eventually(async () => Promise.resolve(calls.some((c) => c.parent === 'cached' && c.status === 304) || undefined), 'a 304 answer for cached');
    // Another sync after the 304 proves it was digested: poke again and wait for one more call.
    const seen = calls.filter((c) => c.parent === 'cached').length;
    await applyParent('cached', 'etag', 'violet', { poke: '2' });
    await eventually(async () => Promise.resolve(calls.filter((c) => c.parent === 'cached').length > seen || undefined), 'one more call for cached');
    const now = await clients.writer.get(childRef('cached'));
    expect(now?.metadata.uid).toBe(child.metadata.uid);
    expect(colorOf(now)).toBe('violet');
    expect(colorOf(await clients.writer.get(parentRef('cached')))).toBe('violet');
    expect(await syncErrors('cached')).toEqual([]);
  });
});
