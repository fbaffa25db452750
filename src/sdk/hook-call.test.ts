import { EventEmitter } from 'node:events';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { hooks } from './hooks-plugin.ts';
import { hookCallOf, type CallTimers, type HookCall } from './hook-call.ts';

const parent = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'web', namespace: 'ns' } };
const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A server whose sync handler answers with what `look` makes of the call it was given. */
async function serverWith(look: (call: HookCall) => unknown) {
  const app = Fastify({ logger: false });
  apps.push(app);
  await app.register(hooks, { composite: { sync: async (_request, call) => ({ status: { seen: await look(call) } }) } });
  return async (headers: Record<string, string>) => {
    const answer = await app.inject({ method: 'POST', url: '/sync', headers: { 'content-type': 'application/json', ...headers }, payload: { parent } });
    return (answer.json<{ status: { seen: unknown } }>()).status.seen;
  };
}

describe('the call a handler is given', () => {
  it('carries the milliseconds loom will wait, from X-Loom-Timeout-Ms', async () => {
    const post = await serverWith((call) => call.timeoutMs);
    expect(await post({ 'X-Loom-Timeout-Ms': '2500' })).toBe(2500);
  });

  it.each([
    ['absent', {}],
    ['not a number', { 'X-Loom-Timeout-Ms': 'soon' }],
    ['negative', { 'X-Loom-Timeout-Ms': '-5' }],
  ])('has no timeout and a signal that is not aborted when the header is %s', async (_case, headers) => {
    const post = await serverWith((call) => ({ timeoutMs: call.timeoutMs ?? null, aborted: call.signal.aborted }));
    expect(await post(headers)).toEqual({ timeoutMs: null, aborted: false });
  });

  it('has an aborted signal when no time is left', async () => {
    const post = await serverWith((call) => call.signal.aborted);
    expect(await post({ 'X-Loom-Timeout-Ms': '0' })).toBe(true);
  });

  it('aborts its signal with a TimeoutError once the time loom waits has passed', async () => {
    const post = await serverWith((call) => new Promise((resolve) => {
      call.signal.addEventListener('abort', () => resolve((call.signal.reason as Error).name), { once: true });
    }));
    expect(await post({ 'X-Loom-Timeout-Ms': '20' })).toBe('TimeoutError');
  });
});

describe('a hostile or out-of-range X-Loom-Timeout-Ms', () => {
  it.each([
    ['2^31, where a timer would overflow to 1 ms', String(2 ** 31), 2 ** 31 - 1],
    ['2^32, where AbortSignal.timeout throws', String(2 ** 32), 2 ** 31 - 1],
    ['the largest safe integer', String(Number.MAX_SAFE_INTEGER), 2 ** 31 - 1],
    ['the largest timer delay', String(2 ** 31 - 1), 2 ** 31 - 1],
  ])('is clamped to the largest timer delay when it is %s', async (_case, header, expected) => {
    const post = await serverWith((call) => ({ timeoutMs: call.timeoutMs, aborted: call.signal.aborted }));
    expect(await post({ 'X-Loom-Timeout-Ms': header })).toEqual({ timeoutMs: expected, aborted: false });
  });

  it.each([
    ['beyond the safe integers', '9007199254740993'],
    ['a run of digits that reads as Infinity', '9'.repeat(400)],
    ['a fraction', '1.5'],
    ['an exponent', '1e3'],
    ['hexadecimal', '0x10'],
    ['signed', '+5'],
    ['negative', '-1'],
  ])('is ignored when it is %s: the handler answers, with no timeout', async (_case, header) => {
    const post = await serverWith((call) => ({ timeoutMs: call.timeoutMs ?? null, aborted: call.signal.aborted }));
    expect(await post({ 'X-Loom-Timeout-Ms': header })).toEqual({ timeoutMs: null, aborted: false });
  });
});

describe('the deadline timer of a call', () => {
  /** Timers that record what was set and cleared, and never fire by themselves. */
  function recordingTimers() {
    const set: { ms: number; run: () => void; handle: symbol }[] = [];
    const cleared: unknown[] = [];
    const timers: CallTimers = {
      set: (run, ms) => {
        const handle = Symbol('timer');
        set.push({ ms, run, handle });
        return handle;
      },
      clear: (handle) => cleared.push(handle),
    };
    return { timers, set, cleared };
  }

  /** A request with `timeout` as its header and a reply whose connection the test closes. */
  function exchange(timeout: string) {
    const request = { headers: { 'x-loom-timeout-ms': timeout } } as unknown as FastifyRequest;
    const raw = Object.assign(new EventEmitter(), { writableFinished: false });
    return { request, reply: { raw } as unknown as FastifyReply, raw };
  }

  it('is set for the clamped time and cleared once the reply has been sent', () => {
    const { timers, set, cleared } = recordingTimers();
    const { request, reply, raw } = exchange(String(2 ** 40));
    const call = hookCallOf(request, reply, timers);
    expect(set.map((t) => t.ms)).toEqual([2 ** 31 - 1]);
    raw.writableFinished = true;
    raw.emit('close');
    expect(cleared).toEqual([set[0]?.handle]);
    expect(call.signal.aborted).toBe(false);
  });

  it('is cleared when the caller hangs up, and the signal aborts with an AbortError', () => {
    const { timers, set, cleared } = recordingTimers();
    const { request, reply, raw } = exchange('5000');
    const call = hookCallOf(request, reply, timers);
    expect(set.map((t) => t.ms)).toEqual([5000]);
    raw.emit('close');
    expect(cleared).toEqual([set[0]?.handle]);
    expect((call.signal.reason as Error).name).toBe('AbortError');
  });

  it('aborts the signal with a TimeoutError when it fires', () => {
    const { timers, set } = recordingTimers();
    const { request, reply } = exchange('5000');
    const call = hookCallOf(request, reply, timers);
    set[0]?.run();
    expect((call.signal.reason as Error).name).toBe('TimeoutError');
  });

  it('is not set when no time is left or no deadline was sent', () => {
    const { timers, set } = recordingTimers();
    for (const header of ['0', 'soon']) {
      const { request, reply } = exchange(header);
      hookCallOf(request, reply, timers);
    }
    expect(set).toEqual([]);
  });
});
