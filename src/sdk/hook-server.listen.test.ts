/** The hook server on a real socket (127.0.0.1, a free port): listen, serve, close, signals. */
import { afterEach, describe, expect, it } from 'vitest';
import { createHookServer, type HookServer } from './hook-server.ts';

const parent = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'web' } };
const started: HookServer[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

function start(handleSignals: boolean): HookServer {
  const server = createHookServer({ logger: false, handleSignals, composite: { sync: (request) => ({ status: { name: request.parent.metadata.name } }) } });
  started.push(server);
  return server;
}

/** Listeners on the two signals, to find and call ours without sending a signal to the test runner. */
function signalListeners(): NodeJS.SignalsListener[] {
  return [...process.listeners('SIGTERM'), ...process.listeners('SIGINT')];
}

describe('createHookServer().listen', () => {
  it('serves hooks over HTTP at the URL it resolves to', async () => {
    const url = await start(false).listen({ host: '127.0.0.1', port: 0 });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${url}/sync`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ parent }) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ status: { name: 'web' } });
    expect(await (await fetch(`${url}/healthz`)).text()).toBe('ok');
  });

  it('stops serving on close', async () => {
    const server = start(false);
    const url = await server.listen({ port: 0 });
    await server.close();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('leaves the signals alone unless asked', async () => {
    const before = signalListeners();
    await start(false).listen({ port: 0 });
    expect(signalListeners()).toEqual(before);
  });

  it('closes on SIGTERM or SIGINT when asked, and removes its handlers on close', async () => {
    const before = signalListeners();
    const server = start(true);
    const closed = new Promise<void>((resolve) => server.app.addHook('onClose', (_app, done) => { resolve(); done(); }));
    const url = await server.listen({ port: 0 });
    const ours = signalListeners().filter((listener) => !before.includes(listener));
    expect(ours).toHaveLength(2);
    ours[0]?.('SIGTERM');
    await closed;
    expect(signalListeners()).toEqual(before);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
