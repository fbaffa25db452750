/**
 * A kubeconfig's `proxy-url` (a cluster reached only through an HTTP proxy, as kubectl and client-go
 * honour it): loom's requests and watches to the real API server go through a CONNECT proxy, and a
 * proxy scheme loom cannot speak is refused by name.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRestClient, loadKubeConfig } from '../src/kube/index.ts';

let proxy: Server;
let proxyUrl: string;
const tunnels: string[] = [];
let dir: string;

beforeAll(async () => {
  proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'loom-proxy-url-'));
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** The test cluster's kubeconfig with `proxy-url` set on its cluster. */
async function kubeconfigWithProxy(url: string): Promise<string> {
  const config = load(await readFile(inject('kubeconfigPath'), 'utf8')) as { clusters: { cluster: Record<string, unknown> }[] };
  for (const { cluster } of config.clusters) cluster['proxy-url'] = url;
  const path = join(dir, `kubeconfig-${tunnels.length}-${url.split(':')[0]}`);
  await writeFile(path, dump(config));
  return path;
}

describe('a kubeconfig with proxy-url', () => {
  it('reaches the API server through the proxy, for requests and watches', async () => {
    const client = createRestClient({ kubeConfig: loadKubeConfig({ path: await kubeconfigWithProxy(proxyUrl) }) });
    const server = new URL(client.server);
    const namespaces = await client.request<{ items: unknown[] }>({ method: 'GET', path: '/api/v1/namespaces' });
    expect(namespaces.items.length).toBeGreaterThan(0);
    const stop = new AbortController();
    for await (const event of client.watch('/api/v1/namespaces', {}, stop.signal)) {
      expect(event.type).toBe('ADDED');
      stop.abort();
      break;
    }
    expect(tunnels.length).toBeGreaterThan(0);
    expect(new Set(tunnels)).toEqual(new Set([`${server.hostname}:${server.port}`]));
  });

  it('refuses a socks5 proxy, naming it, rather than connecting directly', async () => {
    const path = await kubeconfigWithProxy('socks5://127.0.0.1:1080');
    expect(() => createRestClient({ kubeConfig: loadKubeConfig({ path }) })).toThrow('proxy-url socks5://127.0.0.1:1080: only http:// and https:// proxies are supported');
  });
});
