/**
 * What every request to the API server says about itself, over a plain HTTP server that records the
 * headers it is sent: who calls (`User-Agent`, for audit logs and API Priority and Fairness), and that
 * a gzip-compressed answer is welcome.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestClient, type RestClient } from './rest-client.ts';

let server: Server;
let client: RestClient;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.setHeader('Content-Type', 'application/json');
    if (req.url?.includes('watch=true')) res.end('{"type":"ADDED","object":{"metadata":{"resourceVersion":"5"}}}\n');
    else res.end('{"kind":"Status"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = createRestClient({ kubeConfig: { getCurrentCluster: () => ({ server: `http://127.0.0.1:${port}` }), applyToHTTPSOptions: async () => {} } });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function headersOf(call: () => Promise<unknown>): Promise<IncomingHttpHeaders> {
  seen.length = 0;
  await call();
  expect(seen).toHaveLength(1);
  return seen[0]!;
}

const watchOnce = async (): Promise<void> => {
  for await (const event of client.watch('/api/v1/pods', {}, new AbortController().signal)) expect(event.type).toBe('ADDED');
};

describe('every API request', () => {
  const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  const userAgent = `loom/${version} (${process.platform}/${process.arch}) node/${process.version}`;

  it('names loom, its version, the platform and Node in User-Agent, on requests and watches alike', async () => {
    expect((await headersOf(() => client.request({ method: 'GET', path: '/api/v1/pods' })))['user-agent']).toBe(userAgent);
    expect((await headersOf(() => client.request({ method: 'POST', path: '/api/v1/namespaces', body: {} })))['user-agent']).toBe(userAgent);
    expect((await headersOf(watchOnce))['user-agent']).toBe(userAgent);
  });
});
