import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { hookServers } from './hook-server.test-support.ts';
import { createWebhookRunner } from './webhook-runner.ts';
import { REMAINING_TIMEOUT_HEADER } from './webhook-deadline.ts';

const servers = hookServers();
afterEach(() => servers.closeAll());

/** A server that records each request's headers and answers `{}`. */
async function recordingServer(seen: IncomingHttpHeaders[]): Promise<string> {
  return servers.fastify((app) => {
    app.post('/sync', (req, reply) => {
      seen.push(req.headers);
      return reply.send({});
    });
  });
}

describe('webhook runner: the remaining deadline', () => {
  it('is named X-Loom-Timeout-Ms', () => {
    expect(REMAINING_TIMEOUT_HEADER).toBe('X-Loom-Timeout-Ms');
  });

  it('tells the hook the whole timeout when nothing was spent before sending', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const base = await recordingServer(seen);
    const runner = createWebhookRunner({ url: `${base}/sync`, timeoutMs: 4_000, hook: 'sync', clock: { now: () => 1_000_000 } });
    await runner.call({}, new AbortController().signal);
    expect(seen.map((headers) => headers['x-loom-timeout-ms'])).toEqual(['4000']);
  });

  it('tells the hook what is left of the timeout when the request goes out, not the whole of it', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const base = await recordingServer(seen);
    let now = 1_000_000;
    // Time spent after the call started (reading credentials, building headers) is no longer the hook's.
    const callHeaders = (): Record<string, string> => {
      now += 1_500;
      return {};
    };
    const runner = createWebhookRunner({ url: `${base}/sync`, timeoutMs: 4_000, hook: 'sync', clock: { now: () => now }, callHeaders });
    await runner.call({}, new AbortController().signal);
    expect(seen.map((headers) => headers['x-loom-timeout-ms'])).toEqual(['2500']);
  });

  it('cannot be overridden by a call header', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const base = await recordingServer(seen);
    const runner = createWebhookRunner({
      url: `${base}/sync`, timeoutMs: 3_000, hook: 'sync', clock: { now: () => 5 }, callHeaders: () => ({ 'x-loom-timeout-ms': '999999' }),
    });
    await runner.call({}, new AbortController().signal);
    expect(seen.map((headers) => headers['x-loom-timeout-ms'])).toEqual(['3000']);
  });
});
