/**
 * The local control plane behaves like a real cluster for what loom relies on: server-side apply,
 * garbage collection by the controller-manager, CRDs and watches.
 */
import {
  ApiException, ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, PatchStrategy, Watch, setHeaderOptions,
  type KubernetesObject, type V1ConfigMap,
} from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, isNotFound, testKubeConfig } from './support/cluster.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
let namespace: string;

beforeAll(async () => {
  namespace = await createTestNamespace(kc, 'control-plane');
});

function applyConfigMap(name: string, data: Record<string, string>): Promise<V1ConfigMap> {
  const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
  return core.patchNamespacedConfigMap(
    { name, namespace, body, fieldManager: 'loom', force: true },
    setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
  );
}

describe('server-side apply', () => {
  it('creates, then changes a field, recording loom as the manager', async () => {
    const created = await applyConfigMap('applied', { color: 'blue' });
    expect(created.data).toEqual({ color: 'blue' });

    const changed = await applyConfigMap('applied', { color: 'green' });
    expect(changed.data).toEqual({ color: 'green' });
    expect(changed.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);
    const managers = changed.metadata?.managedFields?.map((f) => [f.manager, f.operation]);
    expect(managers).toEqual([['loom', 'Apply']]);
    expect(JSON.stringify(changed.metadata?.managedFields?.[0]?.fieldsV1)).toContain('f:color');
  });

  it('writes nothing when the same configuration is applied again', async () => {
    const first = await applyConfigMap('steady', { size: '1' });
    const again = await applyConfigMap('steady', { size: '1' });
    expect(again.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
  });
});

describe('garbage collection', () => {
  it('removes a dependent once its owner is deleted', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'owner' } } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }];
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'dependent', ownerReferences } } });
    // The dependent stays while its owner exists.
    expect((await core.readNamespacedConfigMap({ name: 'dependent', namespace })).metadata?.name).toBe('dependent');

    await core.deleteNamespacedConfigMap({ name: 'owner', namespace });
    const gone = await eventually(async () => {
      try {
        await core.readNamespacedConfigMap({ name: 'dependent', namespace });
        return undefined;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    }, 'the garbage collector to delete the dependent');
    expect(gone).toBe(true);
  });
});

describe('custom resources', () => {
  const group = 'test.loom.dev';
  const plural = 'widgets';
  const crdName = `${plural}.${group}`;

  it('serves a new CRD once Established and streams ADDED for a new object', async () => {
    const extensions = kc.makeApiClient(ApiextensionsV1Api);
    await extensions.createCustomResourceDefinition({
      body: {
        metadata: { name: crdName },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [{
            name: 'v1', served: true, storage: true,
            schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
          }],
        },
      },
    });
    await eventually(async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: crdName });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') || undefined;
    }, 'the CRD to become Established');

    const custom = kc.makeApiClient(CustomObjectsApi);
    // Established is not yet "served": for a moment the new resource's storage answers 429
    // "storage is (re)initializing" with Retry-After, as on any real cluster.
    const list = await eventually(async () => {
      try {
        return (await custom.listNamespacedCustomObject({ group, version: 'v1', namespace, plural })) as
          { metadata: { resourceVersion: string } };
      } catch (err) {
        if (err instanceof ApiException && err.code === 429) return undefined;
        throw err;
      }
    }, 'the new resource to be served');
    const added = new Promise<KubernetesObject>((resolve, reject) => {
      void new Watch(kc).watch(
        `/apis/${group}/v1/namespaces/${namespace}/${plural}`,
        { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true },
        (type, obj: KubernetesObject) => {
          if (type === 'ADDED') resolve(obj);
        },
        (err: unknown) => reject(err instanceof Error ? err : new Error('the watch ended before ADDED')),
      ).then((watch) => added.finally(() => watch.abort()), reject);
    });

    await custom.createNamespacedCustomObject({
      group, version: 'v1', namespace, plural,
      body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'first' }, spec: { size: 3 } },
    });
    const event = await added;
    expect(event.kind).toBe('Widget');
    expect(event.metadata?.name).toBe('first');
    await extensions.deleteCustomResourceDefinition({ name: crdName });
  });
});
