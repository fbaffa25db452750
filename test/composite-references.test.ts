/**
 * `--reference-namespaces` on the real control plane (the confused deputy): a controller whose webhook
 * credentials name a Secret outside the allowed namespaces does not start (`Ready=False`, reason
 * `ReferenceNotAllowed`, with the field path), and loom never reads that Secret; one naming a Secret
 * inside them runs, and loom watches just that Secret, never every Secret in the cluster.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { readyCondition, startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'references';
const KIND = TEST_PARENT_KINDS.referencing;
let clients: TestClients;
let loom: TestLoom;
let hook: FastifyInstance;
let url: string;
let allowed: string;
let elsewhere: string;
const requests: { method: string; path: string }[] = [];
const tokensSeen: (string | undefined)[] = [];

const secret = (namespace: string, token: string): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hook-token', namespace }, data: { token: Buffer.from(token).toString('base64') } });

function controller(name: string, secretNamespace: string, mode: string): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name, labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { mode } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { webhook: { url, authorization: { secretRef: { namespace: secretNamespace, name: 'hook-token', key: 'token' } } } } },
    },
  };
}

const readyOf = (name: string) => eventually(() => readyCondition(clients, name), `${name} to report Ready`);

beforeAll(async () => {
  clients = await testClients();
  allowed = await createTestNamespace(testKubeConfig(), 'refs-allowed');
  elsewhere = await createTestNamespace(testKubeConfig(), 'refs-elsewhere');
  await createParentCrd(clients, KIND);
  await clients.apply(secret(allowed, 'allowed-token'));
  await clients.apply(secret(elsewhere, 'stolen-token'));
  hook = Fastify();
  hook.post('/sync', (req) => {
    tokensSeen.push(req.headers.authorization);
    const { parent } = req.body as { parent: KubeObject };
    return { children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-child` } }] };
  });
  url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
  loom = await startTestLoom(LABEL, { referenceNamespaces: [allowed] }, (r) => requests.push(r));
});

afterAll(async () => {
  await loom?.stop();
  await hook?.close();
});

describe('--reference-namespaces', () => {
  it('keeps a controller naming a Secret elsewhere from starting, and never reads that Secret', async () => {
    await clients.apply(controller('refs-elsewhere', elsewhere, 'elsewhere'));
    const ready = await readyOf('refs-elsewhere');
    expect(ready).toMatchObject({ status: 'False', reason: 'ReferenceNotAllowed' });
    expect(ready.message).toContain(`spec.hooks.sync.webhook.authorization.secretRef: Secret ${elsewhere}/hook-token is in namespace "${elsewhere}"`);
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'victim', namespace: allowed, labels: { mode: 'elsewhere' } }, spec: {} });
    expect(requests.filter((r) => r.path.includes(`/namespaces/${elsewhere}/secrets`))).toEqual([]);
    expect(tokensSeen).not.toContain('Bearer stolen-token');
  });

  it('runs a controller naming a Secret in an allowed namespace, watching only that Secret', async () => {
    await clients.apply(controller('refs-allowed', allowed, 'allowed'));
    expect(await readyOf('refs-allowed')).toMatchObject({ status: 'True' });
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'fine', namespace: allowed, labels: { mode: 'allowed' } }, spec: {} });
    await eventually(() => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: allowed, name: 'fine-child' }), 'the child');
    expect(tokensSeen).toContain('Bearer allowed-token');
    const secretReads = [...new Set(requests.filter((r) => r.path.endsWith('/secrets')).map((r) => r.path))];
    expect(secretReads).toEqual([`/api/v1/namespaces/${allowed}/secrets`]);
  });
});
