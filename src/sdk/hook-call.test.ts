import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { hooks } from './hooks-plugin.ts';
import type { HookCall } from './hook-call.ts';

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
