/**
 * A controller's client (`withTenant`) follows the controller's stop signal without leaving anything
 * on it: that signal lives as long as the controller, while the controller makes requests by the
 * thousand. Over a plain HTTP server; the listeners on the stop signal are counted by a spy.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRestClient, withTenant, type RestClient } from './index.ts';

let server: Server;
let client: RestClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hang') return; // Never answers.
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

/** Counts the abort listeners added to and removed from `signal`. */
function countListeners(signal: AbortSignal): { added: () => number; live: () => number } {
  const add = vi.spyOn(signal, 'addEventListener');
  const remove = vi.spyOn(signal, 'removeEventListener');
  const aborts = (spy: typeof add | typeof remove): number => spy.mock.calls.filter(([type]) => type === 'abort').length;
  return { added: () => aborts(add), live: () => aborts(add) - aborts(remove) };
}

describe('a controller\'s client', () => {
  it('holds no listener on the stop signal once its requests are done, with or without a signal of their own', async () => {
    const stop = new AbortController();
    const listeners = countListeners(stop.signal);
    const controller = withTenant(client, 'CompositeController/c', stop.signal);
    const requests = 20;
    await Promise.all(Array.from({ length: requests }, (_, i) => controller.request({
      method: 'GET', path: `/ok-${i}`, ...(i % 2 === 0 ? { signal: new AbortController().signal } : {}),
    })));
    // Each request followed the stop signal itself (nothing combined in between that could keep a reference)...
    expect(listeners.added()).toBe(requests);
    // ...and let it go when it was done.
    expect(listeners.live()).toBe(0);
  });

  it('gives a request up in flight when the controller stops, though it has a signal of its own', async () => {
    const stop = new AbortController();
    const listeners = countListeners(stop.signal);
    const controller = withTenant(client, 'CompositeController/c', stop.signal);
    const pending = controller.request({ method: 'GET', path: '/hang', signal: new AbortController().signal });
    // A state, not a time: the bound only ends a broken run.
    await vi.waitFor(() => expect(listeners.live()).toBe(1), { timeout: 60_000 });
    stop.abort(new Error('the controller stopped'));
    await expect(pending).rejects.toThrow();
    expect(listeners.live()).toBe(0);
  });
});
