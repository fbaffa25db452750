import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../api/bounded-text.ts';
import { liveTimers } from '../engine/live-timers.test-support.ts';
import { HookError, HookRetryAfterError } from './hook-error.ts';
import { NO_RESPONSE, type HookRequestOutcome } from './hook-observer.ts';
import { closedPort, hookServers, readRequest } from './hook-server.test-support.ts';
import { createWebhookRunner, type WebhookRunnerOptions } from './webhook-runner.ts';

const NOW = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
const clock = { now: () => NOW };
const servers = hookServers();
afterEach(() => {
  vi.restoreAllMocks();
  return servers.closeAll();
});

const request = {
  controller: { metadata: { name: 'web-controller' } },
  parent: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'default' }, data: { greeting: 'grüße ✓' } },
  children: { 'Pod.v1': {} },
};

function runner(url: string, options: Partial<WebhookRunnerOptions> = {}) {
  return createWebhookRunner({ url, timeoutMs: 5_000, hook: 'sync', clock, ...options });
}

function call(url: string, options: Partial<WebhookRunnerOptions> = {}): Promise<unknown> {
  return runner(url, options).call(request, new AbortController().signal);
}

/** The rejection of `promise`, which must reject. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => ({ rejected: false, value }),
    (error: unknown) => ({ rejected: true, value: error }),
  );
  expect(outcome.rejected, `resolved with ${JSON.stringify(outcome.value)}`).toBe(true);
  expect(outcome.value).toBeInstanceOf(Error);
  return outcome.value as Error;
}

/** A raw server that answers every request with `response`, written as given, then closes. */
function rawAnswer(response: string): Promise<string> {
  return servers.raw((socket) => {
    void readRequest(socket).then(() => socket.end(response));
  });
}

describe('webhook runner: request', () => {
  it('POSTs the request as JSON with an exact content type and a content length, and returns the 200 body', async () => {
    const seen: { method: string; headers: IncomingHttpHeaders; body: unknown }[] = [];
    const base = await servers.fastify((app) => {
      app.post('/sync', (req, reply) => {
        seen.push({ method: req.method, headers: req.headers, body: req.body });
        return reply.send({ status: { echoed: req.body }, children: [] });
      });
    });
    await expect(call(`${base}/sync`)).resolves.toEqual({ status: { echoed: request }, children: [] });
    expect(seen).toHaveLength(1);
    const [only] = seen;
    expect(only?.method).toBe('POST');
    expect(only?.headers['content-type']).toBe('application/json');
    expect(only?.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(request))));
    expect(only?.headers['transfer-encoding']).toBeUndefined();
    expect(only?.body).toEqual(request);
  });

  it('sends the call headers as each call starts, under its own content headers', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const base = await servers.fastify((app) => {
      app.post('/sync', (req, reply) => {
        seen.push(req.headers);
        return reply.send({});
      });
    });
    let n = 0;
    const traced = runner(`${base}/sync`, { callHeaders: () => ({ traceparent: `00-${'a'.repeat(32)}-${String(++n).padStart(16, '0')}-01`, 'content-type': 'text/plain' }) });
    await traced.call(request, new AbortController().signal);
    await traced.call(request, new AbortController().signal);
    expect(seen.map((h) => h.traceparent)).toEqual([`00-${'a'.repeat(32)}-0000000000000001-01`, `00-${'a'.repeat(32)}-0000000000000002-01`]);
    expect(seen.map((h) => h['content-type'])).toEqual(['application/json', 'application/json']);
  });

  it('writes the headers on the wire exactly, never chunked', async () => {
    const heads: string[] = [];
    const base = await servers.raw((socket) => {
      void readRequest(socket).then(({ head, body }) => {
        heads.push(head);
        socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      });
    });
    await expect(call(`${base}/hooks/sync`)).resolves.toEqual(request);
    const lines = heads[0]?.split('\r\n') ?? [];
    expect(lines[0]).toBe('POST /hooks/sync HTTP/1.1');
    expect(lines).toContain('Content-Type: application/json');
    expect(lines).toContain(`Content-Length: ${Buffer.byteLength(JSON.stringify(request))}`);
    expect(lines.filter((line) => /^transfer-encoding:/i.test(line))).toEqual([]);
  });

  it('rejects a request that cannot be encoded as JSON without sending it', async () => {
    const base = await servers.raw((socket) => socket.destroy());
    const error = await failure(runner(base).call({ big: 1n }, new AbortController().signal));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toContain('cannot be encoded as JSON');
  });
});

describe('webhook runner: response framing and limits', () => {
  it.each([
    ['HTTP/1.1 without Connection header', 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n'],
    ['HTTP/1.1 with Connection: close', 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n'],
    ['HTTP/1.0', 'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n'],
  ])('reads a 200 without Content-Length to the close of the connection (%s)', async (_name, head) => {
    const base = await servers.raw((socket) => {
      void readRequest(socket).then(() => {
        socket.write(head);
        socket.write('{"children":[{"kind":');
        socket.end('"Pod"}]}');
      });
    });
    await expect(call(`${base}/sync`)).resolves.toEqual({ children: [{ kind: 'Pod' }] });
  });

  it('rejects a response whose declared length is over the limit', async () => {
    const base = await servers.fastify((app) => {
      app.post('/sync', (_req, reply) => reply.send({ padding: 'x'.repeat(2_048) }));
    });
    const error = await failure(call(`${base}/sync`, { maxResponseBytes: 1_024 }));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toContain('exceeds the limit of 1024 bytes');
  });

  it('rejects a connection-close framed response that grows over the limit', async () => {
    const base = await rawAnswer(`HTTP/1.1 200 OK\r\n\r\n"${'x'.repeat(2_048)}"`);
    const error = await failure(call(`${base}/sync`, { maxResponseBytes: 1_024 }));
    expect(error.message).toContain('exceeds the limit of 1024 bytes');
  });

  it('accepts a response exactly at the limit', async () => {
    const body = `"${'x'.repeat(1_022)}"`;
    const base = await rawAnswer(`HTTP/1.1 200 OK\r\n\r\n${body}`);
    await expect(call(`${base}/sync`, { maxResponseBytes: 1_024 })).resolves.toBe('x'.repeat(1_022));
  });

  it('rejects a body cut short of its Content-Length', async () => {
    const base = await rawAnswer('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"children":');
    const error = await failure(call(`${base}/sync`));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toMatch(/^sync hook POST http:\/\/127\.0\.0\.1:\d+\/sync: connection closed before the response was complete$/);
  });
});

describe('webhook runner: status codes', () => {
  it.each([400, 404, 500, 503])('turns HTTP %i into a HookError quoting the start of the body', async (status) => {
    const body = `boom ${status}: ${'a'.repeat(300)}TAIL`;
    const base = await servers.fastify((app) => {
      app.post('/sync', async (_req, reply) => reply.code(status).type('text/plain').send(body));
    });
    const error = await failure(call(`${base}/sync`));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toContain(`HTTP ${status}: ${body.slice(0, 200)}`);
    expect(error.message).not.toContain('TAIL');
  });

  it.each([[404, 'Not Found'], [503, 'Service Unavailable']])('says the status text of HTTP %i when the body is empty', async (status, text) => {
    const base = await servers.fastify((app) => {
      app.post('/sync', async (_req, reply) => reply.code(status).send());
    });
    const error = await failure(call(`${base}/sync`));
    expect(error.message).toMatch(new RegExp(`: HTTP ${status} ${text}$`));
  });

  it('rejects a 200 whose body is not JSON, quoting it', async () => {
    const base = await servers.fastify((app) => {
      app.post('/sync', async (_req, reply) => reply.type('application/json').send('{"children": [oops'));
    });
    const error = await failure(call(`${base}/sync`));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toContain('invalid JSON');
    expect(error.message).toContain('{"children": [oops');
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it.each([[500, 'text/plain'], [200, 'application/json']])('quotes only the start of a huge HTTP %i body that is not an answer', async (status, type) => {
    const body = `${'x'.repeat(8 * 1024 * 1024)}`;
    const base = await servers.fastify((app) => {
      app.post('/sync', async (_req, reply) => reply.code(status).type(type).send(body));
    });
    const error = await failure(call(`${base}/sync`));
    expect(error.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(error.message).toContain('xxxx');
  });

  it.each<[string, string | undefined, number]>([
    ['integer seconds', '3', 3_000],
    ['an HTTP date 5 s ahead', 'Wed, 21 Oct 2015 07:28:05 GMT', 5_000],
    ['an HTTP date in the past', 'Wed, 21 Oct 2015 07:27:00 GMT', 0],
    ['an unparsable value', 'soon', 0],
    ['no header', undefined, 0],
  ])('turns 429 with %s into HookRetryAfterError', async (_name, retryAfter, expectedMs) => {
    const base = await servers.fastify((app) => {
      app.post('/sync', async (_req, reply) => {
        if (retryAfter !== undefined) void reply.header('Retry-After', retryAfter);
        return reply.code(429).send('slow down');
      });
    });
    const error = await failure(call(`${base}/sync`));
    expect(error).toBeInstanceOf(HookRetryAfterError);
    expect(error).not.toBeInstanceOf(HookError);
    expect((error as HookRetryAfterError).retryAfterMs).toBe(expectedMs);
  });
});

describe('webhook runner: failures without a response', () => {
  it('times out a hook that never answers', async () => {
    const base = await servers.raw(() => undefined);
    const error = await failure(call(`${base}/sync`, { timeoutMs: 200 }));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toContain('timed out after 200 ms');
    expect((error.cause as Error).name).toBe('TimeoutError');
  });

  it('leaves no timer behind once a call is answered or refused', async () => {
    const base = await servers.fastify((app) => app.post('/sync', () => ({ status: {} })));
    const refused = `http://127.0.0.1:${await closedPort()}/sync`;
    const bounds = liveTimers(60_000);
    await call(`${base}/sync`, { timeoutMs: 60_000 });
    await failure(call(refused, { timeoutMs: 60_000 }));
    expect(bounds.started()).toBe(2);
    expect(bounds.live()).toBe(0);
  });

  it('reports a refused connection with its cause', async () => {
    const error = await failure(call(`http://127.0.0.1:${await closedPort()}/sync`));
    expect(error).toBeInstanceOf(HookError);
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('stops when the caller aborts mid-request', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const base = await servers.raw((socket) => {
      void readRequest(socket).then(() => controller.abort(reason));
    });
    const error = await failure(runner(`${base}/sync`).call(request, controller.signal));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toContain('aborted by the caller');
    expect(error.cause).toBe(reason);
  });

  it('does not send when the caller has already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    const error = await failure(runner('http://127.0.0.1:9/sync').call(request, controller.signal));
    expect(error.message).toContain('aborted by the caller');
  });

  it('keeps credentials and query out of error messages', async () => {
    const port = await closedPort();
    const error = await failure(call(`http://user:s3cret@127.0.0.1:${port}/sync?token=t0ken`));
    expect(error.message).toContain(`sync hook POST http://127.0.0.1:${port}/sync:`);
    expect(error.message).not.toMatch(/s3cret|t0ken/);
  });
});

describe('webhook runner: observer', () => {
  function recorder() {
    const events: (string | HookRequestOutcome)[] = [];
    let time = NOW;
    return {
      events,
      // Each reading advances 250 ms, so a request observes exactly 0.25 s.
      clock: { now: () => (time += 250) },
      observer: { requestStarted: () => events.push('started'), requestFinished: (o: HookRequestOutcome) => events.push(o) },
    };
  }

  it.each([[200, '{}'], [500, 'no'], [429, '']])('reports HTTP %i with its code and duration', async (status, body) => {
    const base = await servers.fastify((app) => {
      app.post('/sync', async (_req, reply) => reply.code(status).type('application/json').send(body));
    });
    const { events, clock: stepping, observer } = recorder();
    await runner(`${base}/sync`, { clock: stepping, observer }).call(request, new AbortController().signal).catch(() => undefined);
    expect(events).toEqual(['started', { code: String(status), durationSeconds: 0.25 }]);
  });

  it('reports a request that got no response (connection refused) with code error', async () => {
    const { events, clock: stepping, observer } = recorder();
    const url = `http://127.0.0.1:${await closedPort()}/sync`;
    await failure(runner(url, { clock: stepping, observer }).call(request, new AbortController().signal));
    expect(events).toEqual(['started', { code: NO_RESPONSE.error, durationSeconds: 0.25 }]);
  });

  it('reports a request that timed out with code timeout, and one the caller aborted with code aborted', async () => {
    const base = await servers.fastify((app) => {
      app.post('/sync', () => new Promise(() => undefined));
    });
    const timedOut = recorder();
    await failure(runner(`${base}/sync`, { observer: timedOut.observer, timeoutMs: 50 }).call(request, new AbortController().signal));
    expect(timedOut.events[1]).toMatchObject({ code: NO_RESPONSE.timeout });
    const aborted = recorder();
    const caller = new AbortController();
    const call = runner(`${base}/sync`, { observer: aborted.observer }).call(request, caller.signal);
    caller.abort(new Error('shutting down'));
    await failure(call);
    expect(aborted.events[1]).toMatchObject({ code: NO_RESPONSE.aborted });
  });
});

describe('createWebhookRunner', () => {
  it.each<[string, Partial<WebhookRunnerOptions>, string]>([
    ['an invalid URL', { url: 'not a url' }, 'is not a valid URL'],
    ['a non-HTTP scheme', { url: 'ftp://hooks.example/sync' }, 'url scheme "ftp:" must be http or https'],
    ['a zero timeout', { timeoutMs: 0 }, 'timeout 0 ms must be positive'],
    ['a NaN response limit', { maxResponseBytes: Number.NaN }, 'must be positive'],
  ])('rejects %s at once', (_name, options, message) => {
    expect(() => runner('http://hooks.example/sync', options)).toThrow(HookError);
    expect(() => runner('http://hooks.example/sync', options)).toThrow(message);
  });
});
