/**
 * A controller's requests end with the controller: its client (`withTenant`, with the controller's stop
 * signal) gives every request up when the controller stops. Those still waiting for the shared client
 * rate limit leave the line at once, take no slot (the next one goes to whoever waits next), and are never
 * sent. Over a plain HTTP server that counts what it receives, and a rate limit on a hand-driven clock.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, settle } from '../engine/manual-clock.test-support.ts';
import { errorChain } from '../engine/index.ts';
import { createRestClient, withTenant } from '../kube/index.ts';
import { requestBudgets } from './request-budgets.ts';

let server: Server;
let url: string;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(req.url ?? '');
    res.setHeader('Content-Type', 'application/json');
    res.end('{"kind":"Status"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Whether each promise has settled, and how: filled in as they do. */
function track(promises: readonly Promise<unknown>[]): { settled: () => number; errors: unknown[] } {
  let settled = 0;
  const errors: unknown[] = [];
  for (const p of promises) p.then(() => settled++, (err: unknown) => (settled++, errors.push(err)));
  return { settled: () => settled, errors };
}

describe('a stopped controller\'s requests', () => {
  it('leave the rate limit\'s line at once with an abort error, take no slot and send nothing', async () => {
    const clock = manualClock();
    // One request a second, no burst beyond one: every request after the first waits for a slot.
    const budgets = requestBudgets({ clock, qps: 1, burst: 1 });
    const granted: string[] = [];
    const client = createRestClient({
      kubeConfig: { getCurrentCluster: () => ({ server: url }), applyToHTTPSOptions: async () => {} },
      throttle: async (tenant, signal) => {
        await budgets.api(tenant, signal);
        granted.push(tenant ?? 'host');
      },
    });
    const stop = new AbortController();
    const controller = withTenant(client, 'CompositeController/c', stop.signal);

    await controller.request({ method: 'GET', path: '/first' });
    const queued = [1, 2, 3].map((i) => controller.request({ method: 'PUT', path: `/queued-${i}`, body: {} }));
    const outcome = track(queued);
    await settle();
    const host = client.request({ method: 'GET', path: '/host' });
    await settle();

    stop.abort();
    await settle();
    // At once: no time has passed on the clock.
    expect(outcome.settled()).toBe(3);
    expect(outcome.errors).toHaveLength(3);
    for (const err of outcome.errors) expect(errorChain(err).join(': ')).toMatch(/abort/i);
    // A request made after the stop does not wait either.
    await expect(controller.request({ method: 'GET', path: '/after' })).rejects.toThrow(/abort/i);

    // The next slot is the host's: the controller's requests gave theirs up.
    await clock.advance(1_000);
    expect(granted).toEqual(['CompositeController/c', 'host']);
    await host;
    expect(received.filter((path) => path.startsWith('/queued') || path === '/after')).toEqual([]);
    expect(received).toEqual(['/first', '/host']);
  });
});
