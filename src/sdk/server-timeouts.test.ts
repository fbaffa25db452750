import { describe, expect, it } from 'vitest';
import { createHookServer } from './hook-server.ts';
import { DEFAULT_HEADERS_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, fastifyTimeouts } from './server-timeouts.ts';

describe('fastifyTimeouts', () => {
  it.each([
    ['the defaults', {}, { request: 30_000, headers: 10_000, check: 1_000 }],
    ['a short request limit, which also bounds the headers', { requestTimeout: 300 }, { request: 300, headers: 300, check: 75 }],
    ['a short headers limit', { headersTimeout: 200 }, { request: 30_000, headers: 200, check: 50 }],
    ['no headers limit of their own', { headersTimeout: 0 }, { request: 30_000, headers: 30_000, check: 1_000 }],
    ['no limits at all', { requestTimeout: 0, headersTimeout: 0 }, { request: 0, headers: 0, check: 1_000 }],
    ['no request limit, headers bounded', { requestTimeout: 0, headersTimeout: 5_000 }, { request: 0, headers: 5_000, check: 1_000 }],
  ])('%s', (_name, timeouts, { request, headers, check }) => {
    expect(fastifyTimeouts(timeouts)).toEqual({
      requestTimeout: request,
      http: { requestTimeout: request, headersTimeout: headers, connectionsCheckingInterval: check },
    });
  });

  it('names the option that is not a whole number of milliseconds', () => {
    expect(() => fastifyTimeouts({ requestTimeout: -1 })).toThrow(/requestTimeout/);
    expect(() => fastifyTimeouts({ headersTimeout: 1.5 })).toThrow(/headersTimeout/);
  });
});

describe('createHookServer timeouts', () => {
  it("sets them on the HTTP server, where fastify's default sets none", async () => {
    const { app } = createHookServer({ logger: false });
    await app.ready();
    expect([app.server.requestTimeout, app.server.headersTimeout]).toEqual([DEFAULT_REQUEST_TIMEOUT, DEFAULT_HEADERS_TIMEOUT]);
    await app.close();
  });

  it('takes them from its options', async () => {
    const { app } = createHookServer({ logger: false, requestTimeout: 5_000, headersTimeout: 2_000 });
    await app.ready();
    expect([app.server.requestTimeout, app.server.headersTimeout]).toEqual([5_000, 2_000]);
    await app.close();
  });
});
