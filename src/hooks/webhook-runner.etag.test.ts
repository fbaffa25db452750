import type { FastifyReply } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { ETagConfig } from '../api/controller-spec.ts';
import { HookError } from './hook-error.ts';
import { hookServers } from './hook-server.test-support.ts';
import { createWebhookRunner } from './webhook-runner.ts';

/** The rejection of `promise`, which must reject with an Error. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then((value) => ({ rejected: false, value }), (error: unknown) => ({ rejected: true, value: error }));
  expect(outcome.rejected, `resolved with ${JSON.stringify(outcome.value)}`).toBe(true);
  expect(outcome.value).toBeInstanceOf(Error);
  return outcome.value as Error;
}

const servers = hookServers();
afterEach(() => servers.closeAll());

const parent = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' } });
const syncRequest = (name: string, generation = 1) => ({ controller: {}, parent: { ...parent(name), spec: { generation } }, children: {} });

interface Seen {
  ifNoneMatch: string | undefined;
}

/** A hook whose answer for each call comes from `answer`, given the call's index; records If-None-Match. */
async function etagHook(answer: (call: number, reply: FastifyReply, body: unknown) => FastifyReply | object) {
  const seen: Seen[] = [];
  const base = await servers.fastify((app) => {
    app.post('/sync', (req, reply) => {
      seen.push({ ifNoneMatch: req.headers['if-none-match'] });
      return answer(seen.length, reply, req.body);
    });
  });
  return { url: `${base}/sync`, seen };
}

function clockAt(start: number) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

function runner(url: string, etag: ETagConfig | undefined, clock = clockAt(0)) {
  return createWebhookRunner({ url, timeoutMs: 5_000, hook: 'sync', clock, etag });
}

const signal = new AbortController().signal;
const ON: ETagConfig = { enabled: true };

describe('webhook runner: ETag mode', () => {
  it.each([304, 412])('sends If-None-Match and reuses the cached body on %i', async (status) => {
    const { url, seen } = await etagHook((call, reply) =>
      call === 1 ? reply.header('ETag', '"v1"').send({ status: { call } }) : reply.code(status).send());
    const hook = runner(url, ON);
    await expect(hook.call(syncRequest('web'), signal)).resolves.toEqual({ status: { call: 1 } });
    await expect(hook.call(syncRequest('web', 2), signal)).resolves.toEqual({ status: { call: 1 } });
    expect(seen).toEqual([{ ifNoneMatch: undefined }, { ifNoneMatch: '"v1"' }]);
  });

  it('refreshes the entry from a 200 with a new ETag', async () => {
    const { url, seen } = await etagHook((call, reply) =>
      call === 3 ? reply.code(304).send() : reply.header('ETag', `"v${call}"`).send({ status: { call } }));
    const hook = runner(url, ON);
    await hook.call(syncRequest('web'), signal);
    await expect(hook.call(syncRequest('web'), signal)).resolves.toEqual({ status: { call: 2 } });
    await expect(hook.call(syncRequest('web'), signal)).resolves.toEqual({ status: { call: 2 } });
    expect(seen.map((s) => s.ifNoneMatch)).toEqual([undefined, '"v1"', '"v2"']);
  });

  it('drops the entry when a 200 comes without an ETag', async () => {
    const { url, seen } = await etagHook((call, reply) => (call === 1 ? reply.header('ETag', '"v1"').send({}) : reply.send({})));
    const hook = runner(url, ON);
    for (let i = 0; i < 3; i++) await hook.call(syncRequest('web'), signal);
    expect(seen.map((s) => s.ifNoneMatch)).toEqual([undefined, '"v1"', undefined]);
  });

  it('keeps one entry per root object: parent for composite requests, object for decorator requests', async () => {
    const { url, seen } = await etagHook((_call, reply, body) => {
      const root = (body as { parent?: { metadata: { name: string } }; object?: { metadata: { name: string } } });
      return reply.header('ETag', `"${(root.parent ?? root.object)!.metadata.name}"`).send({});
    });
    const hook = runner(url, ON);
    await hook.call(syncRequest('a'), signal);
    await hook.call(syncRequest('b'), signal);
    await hook.call({ controller: {}, object: parent('c'), attachments: {} }, signal);
    await hook.call(syncRequest('a'), signal);
    await hook.call({ controller: {}, object: parent('c'), attachments: {} }, signal);
    await hook.call({ controller: {}, parent: parent('b') }, signal);
    expect(seen.map((s) => s.ifNoneMatch)).toEqual([undefined, undefined, undefined, '"a"', '"c"', '"b"']);
  });

  it('stops sending an entry cacheTimeoutSeconds after it was stored', async () => {
    const { url, seen } = await etagHook((_call, reply) => reply.header('ETag', '"v1"').send({}));
    const clock = clockAt(1_000);
    const hook = runner(url, { enabled: true, cacheTimeoutSeconds: 60 }, clock);
    await hook.call(syncRequest('web'), signal);
    clock.advance(59_999);
    await hook.call(syncRequest('web'), signal); // stored again at 60_999
    clock.advance(60_000);
    await hook.call(syncRequest('web'), signal);
    expect(seen.map((s) => s.ifNoneMatch)).toEqual([undefined, '"v1"', undefined]);
  });

  it('fails a 304 when no If-None-Match was sent', async () => {
    const { url } = await etagHook((_call, reply) => reply.code(304).send());
    const error = await failure(runner(url, ON).call(syncRequest('web'), signal));
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toContain('HTTP 304 Not Modified (no If-None-Match was sent)');
  });

  it('does not cache a 200 whose body is not JSON', async () => {
    const { url, seen } = await etagHook((call, reply) =>
      reply.header('ETag', '"v1"').type('application/json').send(call === 1 ? '{oops' : '{}'));
    const hook = runner(url, ON);
    await expect(hook.call(syncRequest('web'), signal)).rejects.toThrow('invalid JSON');
    await hook.call(syncRequest('web'), signal);
    expect(seen.map((s) => s.ifNoneMatch)).toEqual([undefined, undefined]);
  });
});

describe('webhook runner: without ETag mode', () => {
  it.each<[string, ETagConfig | undefined]>([['absent', undefined], ['disabled', { enabled: false }]])(
    'sends no If-None-Match and fails a 304 (etag %s)', async (_name, etag) => {
      const { url, seen } = await etagHook((call, reply) => (call === 1 ? reply.header('ETag', '"v1"').send({}) : reply.code(304).send()));
      const hook = runner(url, etag);
      await hook.call(syncRequest('web'), signal);
      const error = await failure(hook.call(syncRequest('web'), signal));
      expect(error).toBeInstanceOf(HookError);
      expect(error.message).toMatch(/HTTP 304 Not Modified$/);
      expect(seen.map((s) => s.ifNoneMatch)).toEqual([undefined, undefined]);
    },
  );
});
