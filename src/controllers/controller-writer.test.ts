/**
 * The wiring that ends a controller's writes with it, as the meta-controller (controllerWriter) and
 * the host (tenantWriters) build it, over a real REST client whose rate limit runs on a hand-driven
 * clock and a plain HTTP server that counts what it receives: stopping the controller makes its
 * queued writes reject at once, and none of them is ever sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { manualClock, settle } from '../engine/manual-clock.test-support.ts';
import { errorChain } from '../engine/index.ts';
import { createRestClient } from '../kube/index.ts';
import { controllerWriter, tenantWriters } from './controller-writer.ts';
import type { Host } from './host.ts';
import { requestBudgets } from './request-budgets.ts';

let server: Server;
let url: string;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.setHeader('Content-Type', 'application/json');
    res.end('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  received.length = 0;
  vi.restoreAllMocks();
});

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } });

/** A host whose writers are the host's own wiring over a client limited to one request a second. */
function limitedHost(): Host {
  const clock = manualClock();
  const budgets = requestBudgets({ clock, qps: 1, burst: 1 });
  const client = createRestClient({
    kubeConfig: { getCurrentCluster: () => ({ server: url }), applyToHTTPSOptions: async () => {} },
    throttle: (tenant, signal) => budgets.api(tenant, signal),
  });
  const resolve = () => ({ apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, subresources: [] });
  // Only the writers are the subject; the rest of the host is never touched by controllerWriter.
  return { writerFor: tenantWriters(client, resolve, 'loom') } as unknown as Host;
}

/** Settles each of `promises` into the list of errors it rejected with (in order), counted as they come. */
function rejections(promises: readonly Promise<unknown>[]): { settled: () => number; errors: unknown[] } {
  let settled = 0;
  const errors: unknown[] = [];
  for (const p of promises) p.then(() => settled++, (err: unknown) => (settled++, errors.push(err)));
  return { settled: () => settled, errors };
}

describe('a controller\'s writer', () => {
  it('rejects its queued writes at once when the controller stops, and sends none of them', async () => {
    const meta = new AbortController();
    const own = controllerWriter(limitedHost(), 'CompositeController/c', meta.signal);
    await own.host.writer.create(configMap('first'));
    const queued = rejections([1, 2, 3].map((i) => own.host.writer.create(configMap(`queued-${i}`))));
    await settle();
    expect(queued.settled()).toBe(0);

    own.stop();
    await settle();
    expect(queued.settled()).toBe(3);
    expect(queued.errors).toHaveLength(3);
    for (const err of queued.errors) expect(errorChain(err).join(': ')).toMatch(/abort/i);
    await expect(own.host.writer.create(configMap('after'))).rejects.toThrow(/abort/i);
    expect(received).toEqual(['POST /api/v1/namespaces/ns/configmaps?fieldManager=loom']);
  });

  it('ends with the meta-controller too, and leaves no listener on its signal once stopped', async () => {
    const meta = new AbortController();
    const add = vi.spyOn(meta.signal, 'addEventListener');
    const remove = vi.spyOn(meta.signal, 'removeEventListener');
    const stopped = controllerWriter(limitedHost(), 'CompositeController/a', meta.signal);
    stopped.stop();
    expect(add.mock.calls.length - remove.mock.calls.length).toBe(0);

    const running = controllerWriter(limitedHost(), 'CompositeController/b', meta.signal);
    await running.host.writer.create(configMap('first'));
    const queued = rejections([running.host.writer.create(configMap('queued'))]);
    await settle();
    meta.abort();
    await settle();
    expect(queued.errors).toHaveLength(1);
    expect(received).toEqual(['POST /api/v1/namespaces/ns/configmaps?fieldManager=loom']);
  });
});
