import { afterEach, describe, expect, it } from 'vitest';
import { createCircuitBreaker } from './circuit-breaker.ts';
import { HookCircuitOpenError, HookError } from './hook-error.ts';
import { closedPort, hookServers, readRequest } from './hook-server.test-support.ts';
import { createWebhookRunner } from './webhook-runner.ts';

const servers = hookServers();
afterEach(() => servers.closeAll());

const POLICY = { failures: 3, openMs: 60_000, maxOpenMs: 60_000 };

/** A runner of `url` behind a fresh breaker, and the breaker. */
function guarded(url: string, time = { now: Date.parse('2026-01-01T00:00:00Z') }, maxResponseBytes?: number) {
  const breaker = createCircuitBreaker({ policy: POLICY, clock: { now: () => time.now } });
  const runner = createWebhookRunner({ url, timeoutMs: 5_000, hook: 'sync', clock: { now: () => time.now }, circuit: { breaker, endpoint: url }, maxResponseBytes });
  return { breaker, runner, call: () => runner.call({}, new AbortController().signal) };
}

/** A server answering every call with `status`, counting them. */
async function answering(status: number): Promise<{ url: string; calls: () => number }> {
  let calls = 0;
  const base = await servers.fastify((app) => {
    app.post('/sync', (_req, reply) => {
      calls++;
      return reply.code(status).send(status === 200 ? {} : 'no');
    });
  });
  return { url: `${base}/sync`, calls: () => calls };
}

describe('webhook runner: circuit breaker', () => {
  it('stops calling an endpoint that answered 503 N times in a row, failing fast with when it tries again', async () => {
    const hook = await answering(503);
    const { call } = guarded(hook.url);
    for (let i = 0; i < 3; i++) await expect(call()).rejects.toThrow(/HTTP 503/);
    const fast = await call().catch((err: unknown) => err);
    expect(fast).toBeInstanceOf(HookCircuitOpenError);
    expect(fast).toBeInstanceOf(HookError);
    expect((fast as Error).message).toBe(`sync hook POST ${hook.url}: circuit open after 3 failures; next try at 2026-01-01T00:01:00.000Z`);
    expect((fast as HookCircuitOpenError).endpoint).toBe(hook.url);
    expect(hook.calls()).toBe(3);
  });

  it('counts refused connections as the endpoint being down', async () => {
    const { call, breaker } = guarded(`http://127.0.0.1:${await closedPort()}/sync`);
    for (let i = 0; i < 3; i++) await expect(call()).rejects.toThrow(HookError);
    expect(breaker.state()).toBe('open');
    await expect(call()).rejects.toBeInstanceOf(HookCircuitOpenError);
  });

  it.each([502, 504])('counts a %i (nothing behind a proxy) as the endpoint being down', async (status) => {
    const hook = await answering(status);
    const { call, breaker } = guarded(hook.url);
    for (let i = 0; i < 3; i++) await expect(call()).rejects.toThrow(`HTTP ${status}`);
    expect(breaker.state()).toBe('open');
  });

  it.each([500, 404, 400])('does not open for an endpoint that answers %i: one parent\'s failure, not the endpoint\'s', async (status) => {
    const hook = await answering(status);
    const { call, breaker } = guarded(hook.url);
    for (let i = 0; i < 5; i++) await expect(call()).rejects.toThrow(`HTTP ${status}`);
    expect(breaker.state()).toBe('closed');
    expect(hook.calls()).toBe(5);
  });

  it.each([
    { what: 'too large', answer: `HTTP/1.1 200 OK\r\nContent-Length: 2048\r\n\r\n"${'x'.repeat(2_046)}"`, error: /exceeds the limit/ },
    { what: 'cut short', answer: 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"children":', error: /connection closed before the response was complete/ },
  ])('does not open for an endpoint whose answer is $what: it answered, so it is up', async ({ answer, error }) => {
    const base = await servers.raw((socket) => {
      void readRequest(socket).then(() => socket.end(answer));
    });
    const { call, breaker } = guarded(`${base}/sync`, undefined, 1_024);
    for (let i = 0; i < 5; i++) await expect(call()).rejects.toThrow(error);
    expect(breaker.state()).toBe('closed');
  });

  it('sends one probe once the period has passed, and closes when it is answered', async () => {
    let status = 503;
    const base = await servers.fastify((app) => {
      app.post('/sync', (_req, reply) => reply.code(status).send(status === 200 ? {} : 'no'));
    });
    const time = { now: 0 };
    const { call, breaker } = guarded(`${base}/sync`, time);
    for (let i = 0; i < 3; i++) await expect(call()).rejects.toThrow(/HTTP 503/);
    status = 200;
    time.now = 60_000;
    await expect(call()).resolves.toEqual({});
    expect(breaker.state()).toBe('closed');
  });

  it('lets the caller abort a probe without counting it: the next probe waits the same period', async () => {
    const hook = await answering(503);
    const time = { now: 0 };
    const { runner, breaker } = guarded(hook.url, time);
    for (let i = 0; i < 3; i++) await expect(runner.call({}, new AbortController().signal)).rejects.toThrow(/HTTP 503/);
    time.now = 60_000;
    await expect(runner.call({}, AbortSignal.abort())).rejects.toThrow(/aborted by the caller/);
    expect(breaker.state()).toBe('open');
    expect(breaker.admit()).toMatchObject({ admitted: false, failures: 3, retryAt: 120_000 });
    time.now = 120_000;
    expect(breaker.admit()).toEqual({ admitted: true, probe: true });
  });
});
