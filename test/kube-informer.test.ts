/**
 * The kube layer against the real API server: discovery, the REST client, and a shared informer that
 * sees adds, updates and deletes and keeps its indexes right.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/object.ts';
import { systemClock } from '../src/engine/clock.ts';
import { discover } from '../src/kube/discovery.ts';
import { createInformerRegistry } from '../src/kube/informer-registry.ts';
import { isNotFound } from '../src/kube/kube-api-error.ts';
import { createRestClient, type RestClient } from '../src/kube/rest-client.ts';
import { resourcePath, type ResourceType } from '../src/kube/resource-path.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';

const kc = testKubeConfig();
const client: RestClient = createRestClient({ kubeConfig: kc });
const registry = createInformerRegistry({ client, clock: systemClock, logger: pino({ level: 'silent' }) });
let namespace: string;
let configMaps: ResourceType;

beforeAll(async () => {
  namespace = await createTestNamespace(kc, 'kube-informer');
  configMaps = (await discover(client)).byResource('v1', 'configmaps')!;
});

describe('discovery and REST', () => {
  it('knows built-in types with their scope and subresources', async () => {
    const snapshot = await discover(client);
    expect(configMaps).toMatchObject({ kind: 'ConfigMap', namespaced: true });
    expect(snapshot.byKind('apps/v1', 'Deployment')).toMatchObject({ resource: 'deployments', subresources: expect.arrayContaining(['status']) as unknown });
    expect(snapshot.byResource('v1', 'namespaces')?.namespaced).toBe(false);
  });

  it('lets a watch go quietly when its reader stops early and then aborts it', async () => {
    // An error the response raised after the reader let go would have nobody to catch it: vitest
    // fails the run on such an unhandled error, and in loom it would end the process.
    const stop = new AbortController();
    for await (const event of client.watch('/api/v1/namespaces', {}, stop.signal)) {
      expect(event.type).toBe('ADDED');
      break;
    }
    stop.abort();
    await new Promise((resolve) => setTimeout(resolve, 500));
  });

  it('reports API errors with status and reason', async () => {
    const missing = client.request({ method: 'GET', path: resourcePath(configMaps, { namespace, name: 'absent' }) });
    await expect(missing).rejects.toMatchObject({ status: 404, reason: 'NotFound' });
    await missing.catch((err: unknown) => expect(isNotFound(err)).toBe(true));
  });
});

describe('shared informer', () => {
  const lease = () => registry.acquire(configMaps);
  const held: { release(): void }[] = [];
  afterAll(() => held.forEach((l) => l.release()));

  it('shares one informer per type and stops it with the last release', () => {
    const a = lease();
    const b = lease();
    expect(a.informer).toBe(b.informer);
    expect(registry.active().get('v1/configmaps')).toBe(2);
    a.release();
    a.release();
    expect(registry.active().get('v1/configmaps')).toBe(1);
    b.release();
    expect(registry.active().has('v1/configmaps')).toBe(false);
  });

  it('delivers add, update and delete, and indexes by owner', async () => {
    const l = lease();
    held.push(l);
    const seen: string[] = [];
    l.informer.subscribe({
      onAdd: (o) => o.metadata.namespace === namespace && seen.push(`add ${o.metadata.name}`),
      onUpdate: (_p, o) => o.metadata.namespace === namespace && seen.push(`update ${o.metadata.name}`),
      onDelete: (o) => o.metadata.namespace === namespace && seen.push(`delete ${o.metadata.name}`),
    });
    await l.informer.whenSynced();
    const path = resourcePath(configMaps, { namespace });
    const owner = await client.request<KubeObject>({ method: 'POST', path, body: { metadata: { name: 'owner' } } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid!, controller: true }];
    await client.request({ method: 'POST', path, body: { metadata: { name: 'child', ownerReferences }, data: { a: '1' } } });
    await client.request({ method: 'PATCH', path: `${path}/child`, contentType: 'application/merge-patch+json', body: { data: { a: '2' } } });
    await client.request({ method: 'POST', path, body: { metadata: { name: 'doomed' } } });
    await client.request({ method: 'DELETE', path: `${path}/doomed` });

    await eventually(() => Promise.resolve(seen.includes('delete doomed') ? true : undefined), 'the informer to see the delete');
    expect(seen.filter((s) => s.endsWith('child'))).toEqual(['add child', 'update child']);
    expect(l.informer.store.get(`${namespace}/child`)?.data).toEqual({ a: '2' });
    expect(l.informer.store.byControllerUid(owner.metadata.uid!).map((o) => o.metadata.name)).toEqual(['child']);
    expect(l.informer.store.get(`${namespace}/doomed`)).toBeUndefined();
    expect(seen.filter((s) => s.endsWith('doomed'))).toEqual(['add doomed', 'delete doomed']);
  });
});

describe('label-selected informer', () => {
  it('caches only what its selector matches and it keeps, apart from the unfiltered informer, and drops an object that leaves either', async () => {
    const selector = 'loom.dev/shard notin (1,2)';
    const keep = (o: KubeObject) => o.metadata.annotations?.drop !== 'yes';
    const filtered = registry.acquire(configMaps, undefined, { id: 'shard test', labelSelector: selector, keep });
    const all = registry.acquire(configMaps);
    try {
      expect(filtered.informer).not.toBe(all.informer);
      expect(registry.active().get('v1/configmaps?shard test')).toBe(1);
      await Promise.all([filtered.informer.whenSynced(), all.informer.whenSynced()]);
      const path = resourcePath(configMaps, { namespace });
      const create = (name: string, labels?: Record<string, string>, annotations?: Record<string, string>) => client.request({ method: 'POST', path, body: { metadata: { name, labels, annotations } } });
      await create('shard-0', { 'loom.dev/shard': '0' });
      await create('shard-1', { 'loom.dev/shard': '1' });
      await create('unlabelled');
      await create('shard-dropped', undefined, { drop: 'yes' });
      const names = (store: typeof filtered.informer.store) => store.byNamespace(namespace).map((o) => o.metadata.name).filter((n) => n === 'unlabelled' || n?.startsWith('shard-')).sort();
      await eventually(() => Promise.resolve(names(all.informer.store).length === 4 ? true : undefined), 'the unfiltered informer to see all four');
      await eventually(() => Promise.resolve(names(filtered.informer.store).length === 2 ? true : undefined), 'the filtered informer to see two');
      expect(names(filtered.informer.store)).toEqual(['shard-0', 'unlabelled']);

      await client.request({ method: 'PATCH', path: `${path}/shard-0`, contentType: 'application/merge-patch+json', body: { metadata: { labels: { 'loom.dev/shard': '2' } } } });
      await eventually(() => Promise.resolve(names(filtered.informer.store).length === 1 ? true : undefined), 'the relabelled object to leave the filtered cache');
      expect(names(filtered.informer.store)).toEqual(['unlabelled']);

      const letGo: KubeObject[] = [];
      filtered.informer.subscribe({ onDelete: (o) => letGo.push(o) });
      await client.request({ method: 'PATCH', path: `${path}/unlabelled`, contentType: 'application/merge-patch+json', body: { metadata: { annotations: { drop: 'yes' } } } });
      await eventually(() => Promise.resolve(names(filtered.informer.store).length === 0 ? true : undefined), 'the object no longer kept to leave the filtered cache');
      // Handlers hear of it as they knew it (its owner then is the one to wake), not as it is now.
      expect(letGo.map((o) => [o.metadata.name, o.metadata.annotations?.drop])).toEqual([['unlabelled', undefined]]);
      expect(names(all.informer.store)).toEqual(['shard-0', 'shard-1', 'shard-dropped', 'unlabelled']);
    } finally {
      filtered.release();
      all.release();
    }
  });
});
