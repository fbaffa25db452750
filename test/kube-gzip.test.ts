/**
 * Compression against the real API server: it gzip-compresses a large answer (a list above its
 * 128 KiB threshold) for a client that asks, and loom's client, which asks on every request, gets
 * such a list compressed (as its request observer reports) and reads it whole and right.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createRestClient } from '../src/kube/rest-client.ts';
import { createTestNamespace, testKubeConfig } from './support/cluster.ts';

const kc = testKubeConfig();
/** The Content-Encoding of each answer loom's client read, by method and path. */
const encodings: { method: string; path: string; contentEncoding: string | undefined }[] = [];
const client = createRestClient({ kubeConfig: kc, observe: ({ method, path, contentEncoding }) => encodings.push({ method, path, contentEncoding }) });
let namespace: string;
const COUNT = 40;
/** 8 KiB of data per ConfigMap: 40 of them make a list of about 320 KiB. */
const filler = (i: number): string => `${i}:`.padEnd(8 * 1024, 'abcdefghijklmnopqrstuvwxyz'[i % 26]);

beforeAll(async () => {
  namespace = await createTestNamespace(kc, 'kube-gzip');
  await Promise.all(Array.from({ length: COUNT }, (_, i) => client.request({
    method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { filler: filler(i) } },
  })));
});

describe('a large list', () => {
  it('comes gzip-compressed from the API server to loom\'s client, which reads it whole', async () => {
    const path = `/api/v1/namespaces/${namespace}/configmaps`;
    const list = await client.request<{ items: { metadata: { name: string }; data: { filler: string } }[] }>({ method: 'GET', path });
    // Compressed because loom asked: the API server compresses only for a client that does.
    expect(encodings.filter((seen) => seen.method === 'GET' && seen.path === path)).toEqual([{ method: 'GET', path, contentEncoding: 'gzip' }]);
    expect(list.items).toHaveLength(COUNT);
    for (const item of list.items) expect(item.data.filler).toBe(filler(Number(item.metadata.name.slice('cm-'.length))));
  });
});
