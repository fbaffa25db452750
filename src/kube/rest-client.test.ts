/**
 * The REST client's bound on each request, over a plain HTTP server: a request still waiting is
 * aborted by its caller's signal, and a finished request leaves no timer behind (loom makes hundreds
 * a second; each one's one-minute bound must go when the request does, not a minute later). What the
 * timers cost in memory is measured by `npm run bench:converge`; this checks none is left running.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { liveTimers } from '../engine/live-timers.test-support.ts';
import { createRestClient, type RestClient } from './rest-client.ts';

/** Each request's one-minute bound. */
const REQUEST_BOUND_MS = 60_000;
let server: Server;
let client: RestClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hang') return; // Never answers.
    if (req.url?.startsWith('/watch')) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
      setTimeout(() => res.end('{"type":"ADDED","object":{"metadata":{"resourceVersion":"5"}}}\n'), 50);
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end('{"kind":"Status"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = createRestClient({ kubeConfig: { getCurrentCluster: () => ({ server: `http://127.0.0.1:${port}` }), applyToHTTPSOptions: async () => {} } });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('rest client request bound', () => {
  it('leaves no timer behind once requests are answered', async () => {
    const bounds = liveTimers(REQUEST_BOUND_MS);
    await Promise.all(Array.from({ length: 20 }, () => client.request({ method: 'GET', path: '/ok' })));
    expect(bounds.started()).toBe(20);
    expect(bounds.live()).toBe(0);
  });

  it('aborts a request its caller gives up on, and drops its timer', async () => {
    const bounds = liveTimers(REQUEST_BOUND_MS);
    const caller = new AbortController();
    const pending = client.request({ method: 'GET', path: '/hang', signal: caller.signal });
    await expect.poll(bounds.live).toBe(1);
    caller.abort(new Error('the caller stopped'));
    await expect(pending).rejects.toThrow();
    expect(bounds.live()).toBe(0);
  });
});

describe('rest client throttle', () => {
  it('hands the throttle the request\'s signal, so a request given up while it waits leaves the line unsent', async () => {
    let release: () => void = () => undefined;
    const waits: { tenant: string | undefined; signal: AbortSignal | undefined }[] = [];
    const sent: string[] = [];
    const { port } = server.address() as AddressInfo;
    const throttled = createRestClient({
      kubeConfig: { getCurrentCluster: () => ({ server: `http://127.0.0.1:${port}` }), applyToHTTPSOptions: async () => {} },
      // A throttle with no slot to give until the test says so; it gives up when the signal aborts.
      throttle: (tenant, signal) => new Promise<void>((resolve, reject) => {
        waits.push({ tenant, signal });
        release = resolve;
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      }),
      observe: ({ path }) => sent.push(path),
    });
    const caller = new AbortController();
    const pending = throttled.request({ method: 'GET', path: '/queued', signal: caller.signal, tenant: 'events' });
    await expect.poll(() => waits.length).toBe(1);
    caller.abort(new Error('the caller stopped'));
    await expect(pending).rejects.toThrow(/GET \/queued.*the caller stopped/);
    release();
    expect(waits[0]!.tenant).toBe('events');
    expect(sent).toEqual([]);
  });
});

describe('rest client watch', () => {
  it('says the watch is established when the server accepts it, before any event', async () => {
    const seen: string[] = [];
    for await (const event of client.watch('/watch', {}, new AbortController().signal, () => seen.push('established'))) {
      seen.push(`${event.type} ${event.object.metadata?.resourceVersion}`);
    }
    expect(seen).toEqual(['established', 'ADDED 5']);
  });
});
