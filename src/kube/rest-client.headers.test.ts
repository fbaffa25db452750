/**
 * What every request to the API server says about itself, over a plain HTTP server that records the
 * headers it is sent: who calls (`User-Agent`, for audit logs and API Priority and Fairness), and that
 * a gzip-compressed answer is welcome.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRestClient, type RestClient, type RestClientOptions } from './rest-client.ts';

let server: Server;
let client: RestClient;
const seen: IncomingHttpHeaders[] = [];
/** How the server answers the next requests; the default answers plain JSON. */
let answer: (req: IncomingMessage, res: ServerResponse) => void;
const plainAnswer = (req: IncomingMessage, res: ServerResponse): void => {
  res.setHeader('Content-Type', 'application/json');
  if (req.url?.includes('watch=true')) res.end('{"type":"ADDED","object":{"metadata":{"resourceVersion":"5"}}}\n');
  else res.end('{"kind":"Status"}');
};

/** A client of the test server with `options`. */
function clientWith(options: Omit<RestClientOptions, 'kubeConfig'> = {}): RestClient {
  const { port } = server.address() as AddressInfo;
  return createRestClient({ ...options, kubeConfig: { getCurrentCluster: () => ({ server: `http://127.0.0.1:${port}` }), applyToHTTPSOptions: async () => {} } });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = clientWith();
});

beforeEach(() => {
  answer = plainAnswer;
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

/** Answers `status` with `body` gzip-compressed, written in chunks of 7 bytes so the client sees it arrive in pieces. */
function gzipAnswer(body: string, status = 200): (req: IncomingMessage, res: ServerResponse) => void {
  const chunkBytes = 7;
  return (_req, res) => {
    const compressed = gzipSync(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    for (let at = 0; at < compressed.length; at += chunkBytes) res.write(compressed.subarray(at, at + chunkBytes));
    res.end();
  };
}

/** `bytes` zero bytes, made as they are read (a gzip bomb's payload, never held whole). */
function* zeros(bytes: number): Generator<Buffer> {
  const chunk = Buffer.alloc(64 * 1024);
  for (let left = bytes; left > 0; left -= chunk.length) yield chunk.subarray(0, Math.min(left, chunk.length));
}

describe('compression', () => {
  it('asks for gzip on requests and watches alike', async () => {
    expect((await headersOf(() => client.request({ method: 'GET', path: '/api/v1/pods' })))['accept-encoding']).toBe('gzip');
    expect((await headersOf(watchOnce))['accept-encoding']).toBe('gzip');
  });

  it('reads a gzip-compressed answer, an error\'s body included', async () => {
    const list = { kind: 'PodList', items: Array.from({ length: 200 }, (_, i) => ({ metadata: { name: `pod-${i}`, labels: { app: 'web', 'ü': 'ß' } } })) };
    answer = gzipAnswer(JSON.stringify(list));
    expect(await client.request({ method: 'GET', path: '/api/v1/pods' })).toEqual(list);
    answer = gzipAnswer(JSON.stringify({ kind: 'Status', reason: 'Conflict', message: 'the object has been modified' }), 409);
    await expect(client.request({ method: 'PUT', path: '/api/v1/pods/x', body: {} })).rejects.toThrow('409 Conflict: the object has been modified');
  });

  it('reads a gzip-compressed watch stream, its events split across chunks', async () => {
    const events = Array.from({ length: 50 }, (_, i) => ({ type: 'MODIFIED', object: { metadata: { resourceVersion: String(i) } } }));
    answer = gzipAnswer(events.map((event) => `${JSON.stringify(event)}\n`).join(''));
    const received: unknown[] = [];
    for await (const event of client.watch('/api/v1/pods', {}, new AbortController().signal)) received.push(event);
    expect(received).toEqual(events);
  });

  it('fails clearly on an answer that is not gzip though it says so', async () => {
    answer = (_req, res) => res.writeHead(200, { 'Content-Encoding': 'gzip' }).end('{"kind":"Status"}');
    await expect(client.request({ method: 'GET', path: '/api/v1/pods' })).rejects.toThrow(/GET \/api\/v1\/pods: the response could not be decompressed/);
  });
});

describe('a gzip bomb', () => {
  // 1 GiB of zeros, about 4.5 MiB compressed (gzip level 1). The limit holds for what they decompress
  // to: the client stops reading at the limit, so the server is cut off long before it has sent it all.
  const bomb = (finished: Promise<unknown>[]) => (req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    finished.push(pipeline(Readable.from(zeros(1024 ** 3)), createGzip({ level: 1 }), res).then(() => 'sent whole', () => 'cut off'));
  };
  const limit = 1024 * 1024;

  it('is refused at the limit on the decompressed size of a response', async () => {
    const finished: Promise<unknown>[] = [];
    answer = bomb(finished);
    await expect(clientWith({ maxResponseBytes: limit }).request({ method: 'GET', path: '/api/v1/pods' }))
      .rejects.toThrow(`GET /api/v1/pods: the response is larger than the limit of ${limit} bytes`);
    expect(await Promise.all(finished)).toEqual(['cut off']);
  });

  it('is refused at the limit on the decompressed size of one watch event', async () => {
    const finished: Promise<unknown>[] = [];
    answer = bomb(finished);
    const watching = (async () => {
      for await (const event of clientWith({ maxResponseBytes: limit }).watch('/api/v1/pods', {}, new AbortController().signal)) expect(event).toBeUndefined();
    })();
    await expect(watching).rejects.toThrow(`watch /api/v1/pods: an event is larger than the limit of ${limit} bytes`);
    expect(await Promise.all(finished)).toEqual(['cut off']);
  });
});
