/**
 * What `loom validate`'s status check (src/cli/expression-schemas.ts) says of a status field its
 * parent's CRD lacks, on the real API server: it drops the field without a word and keeps the ones the
 * schema declares, and keeps anything below a part that preserves unknown fields. The same pruning
 * makes a `parent.spec` field the schema lacks read nothing.
 */
import { ApiException, ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';

const kc = testKubeConfig();
const group = 'test.loom.dev';
const plural = 'prunedsites';
let namespace: string;

beforeAll(async () => {
  namespace = await createTestNamespace(kc, 'status-pruning');
  const extensions = kc.makeApiClient(ApiextensionsV1Api);
  await extensions.createCustomResourceDefinition({
    body: {
      metadata: { name: `${plural}.${group}` },
      spec: {
        group, scope: 'Namespaced',
        names: { plural, singular: 'prunedsite', kind: 'PrunedSite', listKind: 'PrunedSiteList' },
        versions: [{
          name: 'v1', served: true, storage: true, subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { message: { type: 'string' } } },
                status: {
                  type: 'object',
                  properties: { ready: { type: 'boolean' }, extra: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
                },
              },
            },
          },
        }],
      },
    },
  });
  await eventually(async () => {
    const crd = await extensions.readCustomResourceDefinition({ name: `${plural}.${group}` });
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') || undefined;
  }, 'the CRD to become Established');
});

describe('the API server prunes fields a CRD schema lacks', () => {
  it('drops an undeclared status field and a misspelt spec field, and keeps declared and preserved ones', async () => {
    const custom = kc.makeApiClient(CustomObjectsApi);
    const body = { apiVersion: `${group}/v1`, kind: 'PrunedSite', metadata: { name: 'web', namespace }, spec: { message: 'hi', mesage: 'typo' } };
    // Established is not yet served: the new resource's storage may answer 429 for a moment.
    const created = await eventually(async () => {
      try {
        return (await custom.createNamespacedCustomObject({ group, version: 'v1', namespace, plural, body })) as Record<string, unknown>;
      } catch (err) {
        if (err instanceof ApiException && err.code === 429) return undefined;
        throw err;
      }
    }, 'the parent to be created');
    expect(created.spec).toEqual({ message: 'hi' });
    const status = { ready: true, redy: true, extra: { any: { thing: 1 } } };
    const written = (await custom.replaceNamespacedCustomObjectStatus({
      group, version: 'v1', namespace, plural, name: 'web', body: { ...created, status },
    })) as Record<string, unknown>;
    expect(written.status).toEqual({ ready: true, extra: { any: { thing: 1 } } });
  });
});
