/**
 * Compression against the real API server: it gzip-compresses a large answer (a list above its
 * 128 KiB threshold) for a client that asks, and loom's client, which asks on every request, reads
 * such a list whole and right.
 */
import { request } from 'node:https';
import type { RequestOptions } from 'node:https';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRestClient } from '../src/kube/rest-client.ts';
import { createTestNamespace, testKubeConfig } from './support/cluster.ts';

const kc = testKubeConfig();
const client = createRestClient({ kubeConfig: kc });
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

/** The Content-Encoding the API server answers a list of the test's ConfigMaps with, asked as loom asks. */
async function listEncoding(): Promise<string | undefined> {
  const cluster = kc.getCurrentCluster()!;
  const url = new URL(`${cluster.server}/api/v1/namespaces/${namespace}/configmaps`);
  const opts: RequestOptions = { host: url.hostname, port: url.port, path: url.pathname, headers: { Accept: 'application/json', 'Accept-Encoding': 'gzip' } };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    request(opts, (res) => {
      res.resume();
      resolve(res.headers['content-encoding']);
    }).once('error', reject).end();
  });
}

describe('a large list', () => {
  it('comes gzip-compressed from the API server, and loom\'s client reads it whole', async () => {
    expect(await listEncoding()).toBe('gzip');
    const list = await client.request<{ items: { metadata: { name: string }; data: { filler: string } }[] }>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/configmaps` });
    expect(list.items).toHaveLength(COUNT);
    for (const item of list.items) expect(item.data.filler).toBe(filler(Number(item.metadata.name.slice('cm-'.length))));
  });
});
