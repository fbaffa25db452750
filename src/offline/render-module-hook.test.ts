import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../engine/manual-clock.test-support.ts';
import { HookError } from '../hooks/index.ts';
import { RenderError } from './render-error.ts';
import { loadHookModule, moduleHookRunner, type InjectableApp } from './render-module-hook.ts';

const MODULES = fileURLToPath(new URL('../cli/testdata/render/module/', import.meta.url));
const never = new AbortController().signal;

/** An app answering every request with `status` and `body`, recording what it was sent. */
function cannedApp(statusCode: number, body: string) {
  const sent: unknown[] = [];
  const app: InjectableApp = {
    inject: (request) => {
      sent.push(request);
      return Promise.resolve({ statusCode, body });
    },
  };
  return { app, sent };
}

describe('loadHookModule', () => {
  it.each(['hook.ts', 'hook-factory.ts'])('loads the app of %s and serves its hook', async (file) => {
    const app = await loadHookModule(file, MODULES);
    const runner = moduleHookRunner({ app, hook: 'sync', path: '/sync', timeoutMs: 1_000, clock: manualClock() });
    const answer = await runner.call({ object: { metadata: { name: 'api' } } }, never);
    expect(answer).toMatchObject({ labels: { exposed: 'true', stale: null }, attachments: [{ kind: 'Ingress', metadata: { name: 'api' } }] });
  });

  it('accepts a plain function returning an instance', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loom-render-'));
    try {
      const fastify = import.meta.resolve('fastify');
      const source = `import Fastify from ${JSON.stringify(fastify)};\nexport default () => { const app = Fastify(); app.post('/s', () => ({ made: 'by a function' })); return app; };\n`;
      await writeFile(join(dir, 'hook.mjs'), source);
      const app = await loadHookModule('hook.mjs', dir);
      const runner = moduleHookRunner({ app, hook: 'sync', path: '/s', timeoutMs: 1_000, clock: manualClock() });
      expect(await runner.call({}, never)).toEqual({ made: 'by a function' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a default export that is no app', async () => {
    await expect(loadHookModule('not-a-hook.ts', MODULES)).rejects.toThrow(new RenderError(
      '--hook-module not-a-hook.ts: the default export is not a fastify instance, an { app } object, or a function returning one',
    ));
  });
});

describe('moduleHookRunner', () => {
  it('POSTs the request as JSON to the path and returns the parsed answer', async () => {
    const { app, sent } = cannedApp(200, '{"children":[]}');
    const runner = moduleHookRunner({ app, hook: 'sync', path: '/hooks/sync?v=2', timeoutMs: 1_000, clock: manualClock() });
    expect(await runner.call({ parent: { a: 1 } }, never)).toEqual({ children: [] });
    expect(sent).toEqual([{ method: 'POST', url: '/hooks/sync?v=2', payload: '{"parent":{"a":1}}', headers: { 'content-type': 'application/json' } }]);
  });

  it.each([
    [500, 'boom', 'sync hook (module) POST /sync: HTTP 500: boom'],
    [404, 'x'.repeat(300), `sync hook (module) POST /sync: HTTP 404: ${'x'.repeat(200)}…`],
    [404, '', 'sync hook (module) POST /sync: HTTP 404 Not Found'],
    [200, 'not json', 'sync hook (module) POST /sync: invalid JSON in the 200 response: not json'],
  ])('fails on status %i', async (status, body, message) => {
    const runner = moduleHookRunner({ app: cannedApp(status, body).app, hook: 'sync', path: '/sync', timeoutMs: 1_000, clock: manualClock() });
    await expect(runner.call({}, never)).rejects.toThrow(new HookError(message));
  });

  it('times out on the injected clock and leaves no timer behind', async () => {
    const clock = manualClock();
    const hanging: InjectableApp = { inject: () => new Promise(() => undefined) };
    const call = moduleHookRunner({ app: hanging, hook: 'customize', path: '/c', timeoutMs: 500, clock }).call({}, never);
    const outcome = call.then(() => 'answered', (error: unknown) => error);
    await clock.advance(499);
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(1);
    expect(await outcome).toEqual(new HookError('customize hook (module) POST /c: timed out after 500 ms'));
    expect(clock.pendingTimers()).toBe(0);
  });

  it('stops its timer once the app answers', async () => {
    const clock = manualClock();
    await moduleHookRunner({ app: cannedApp(200, '{}').app, hook: 'sync', path: '/s', timeoutMs: 500, clock }).call({}, never);
    expect(clock.pendingTimers()).toBe(0);
  });
});
