import Fastify from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { desired } from './desired.ts';
import { HookAnswerError } from './hook-answer-error.ts';
import { createHookServer, type HookServerOptions } from './hook-server.ts';
import { hooks } from './hooks-plugin.ts';
import { childrenOf, observedChild } from './observed.ts';
import { testHook } from './test-hook.ts';
import type { CompositeRequest, DecoratorRequest } from './types.ts';

const parent = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'web', namespace: 'ns' }, spec: { size: 2 } };
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: 'ns' }, data: { a: 'b' } };

/** A server whose logs are kept, one parsed line each. */
function serverWithLogs(options: HookServerOptions) {
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) });
  return { server: createHookServer({ ...options, logger }), logs };
}

/** Wants one ConfigMap per parent, and reports whether it exists: works for v1 and v2 keys. */
function sync(request: CompositeRequest) {
  const name = `${request.parent.metadata.name}-config`;
  return {
    status: { ready: observedChild(request, 'ConfigMap.v1', name) !== undefined, seen: childrenOf(request, 'ConfigMap.v1').length },
    children: [desired({ apiVersion: 'v1', kind: 'ConfigMap', name, data: { a: 'b' } })],
  };
}

describe('composite hooks', () => {
  const server = createHookServer({
    logger: false,
    composite: {
      sync,
      finalize: async (request) => Promise.resolve({ finalized: request.finalizing && childrenOf(request, 'ConfigMap.v1').length === 0 }),
      customize: (request) => ({ relatedResources: [{ apiVersion: 'v1', resource: 'secrets', names: [`${request.parent.metadata.name}-creds`] }] }),
    },
  });
  const hook = testHook(server);

  it.each([
    ['v1', { 'web-config': configMap }],
    ['v2', { 'ns/web-config': configMap }],
  ])('answers sync as application/json (%s keys)', async (_version, observed) => {
    const answer = await hook.sync({ parent, children: { 'ConfigMap.v1': observed } });
    expect(answer.statusCode).toBe(200);
    expect(answer.contentType).toBe('application/json');
    expect(answer.body).toEqual({
      status: { ready: true, seen: 1 },
      children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { a: 'b' } }],
    });
  });

  it('fills in absent object maps before the handler runs', async () => {
    expect((await hook.sync({ parent })).body.status).toEqual({ ready: false, seen: 0 });
  });

  it('answers finalize, with finalizing true unless the request says otherwise', async () => {
    expect((await hook.finalize({ parent, children: { 'ConfigMap.v1': {} } })).body).toEqual({ finalized: true });
    expect((await hook.finalize({ parent, children: { 'ConfigMap.v1': {} }, finalizing: false })).body).toEqual({ finalized: false });
    expect((await hook.finalize({ parent, children: { 'ConfigMap.v1': { 'web-config': configMap } } })).body).toEqual({ finalized: false });
  });

  it('answers customize', async () => {
    expect((await hook.customize({ controller: { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'cc' } }, parent })).body).toEqual({
      relatedResources: [{ apiVersion: 'v1', resource: 'secrets', names: ['web-creds'] }],
    });
  });

  it.each<[string, unknown, string]>([
    ['a body that is not an object', [parent], 'request: expected an object, got an array'],
    ['no parent', { children: {} }, 'request.parent: is required'],
    ['a parent name that is not a string', { parent: { ...parent, metadata: { name: 1 } } }, 'request.parent.metadata.name: expected a string, got a number'],
    ['children that are not an object map', { parent, children: { 'ConfigMap.v1': [] } }, 'request.children["ConfigMap.v1"]: expected an object, got an array'],
    ['a body that is not JSON', '{"parent":', "Body is not valid JSON but content-type is set to 'application/json'"],
  ])('answers 400 to %s, naming the field', async (_case, body, error) => {
    const answer = await hook.sync(body);
    expect(answer.statusCode).toBe(400);
    expect(answer.contentType).toBe('application/json');
    expect(answer.body).toEqual({ error });
  });

  it('answers GET /healthz', async () => {
    const answer = await hook.healthz();
    expect([answer.statusCode, answer.text]).toEqual([200, 'ok']);
  });
});

describe('failing handlers', () => {
  it('answer 500 naming the request but not the error when a handler throws, and log the error with the request\'s id', async () => {
    // The answer ends up in loom's events and conditions, readable by whoever can read the parent.
    const { server, logs } = serverWithLogs({ composite: { sync: () => { throw new Error('cannot connect: db password=hunter2 at 10.0.0.5'); } } });
    const answer = await testHook(server).sync({ parent });
    expect(answer.statusCode).toBe(500);
    const requestId = /\(request (\S+)\)/.exec(answer.body.error ?? '')?.[1];
    expect(answer.body).toEqual({ error: `composite sync hook failed (request ${requestId}); the hook server's log says why` });
    expect(answer.text).not.toMatch(/hunter2|10\.0\.0\.5|password/);
    const logged = logs.find((line) => line.msg === 'hook handler failed');
    expect(logged).toMatchObject({ level: 50, hook: 'composite sync hook', requestId, err: { message: 'cannot connect: db password=hunter2 at 10.0.0.5' } });
  });

  it('answer a HookAnswerError\'s message, which the handler meant for the caller', async () => {
    const server = createHookServer({ logger: false, composite: { sync: () => { throw new HookAnswerError('spec.size: "two" is not a number'); } } });
    expect((await testHook(server).sync({ parent })).body).toEqual({ error: 'composite sync hook failed: spec.size: "two" is not a number' });
    const exposed = Object.assign(new Error('metadata.annotations.ports: "eighty" is not a port'), { expose: true });
    const another = createHookServer({ logger: false, composite: { sync: () => { throw exposed; } } });
    expect((await testHook(another).sync({ parent })).body).toEqual({ error: 'composite sync hook failed: metadata.annotations.ports: "eighty" is not a port' });
  });

  it('answer 500 when a handler returns no object', async () => {
    const server = createHookServer({ logger: false, composite: { sync: () => undefined as never, finalize: () => Promise.resolve([] as never) } });
    expect((await testHook(server).sync({ parent })).body).toEqual({ error: 'composite sync hook returned undefined; expected a response object' });
    expect((await testHook(server).finalize({ parent })).body).toEqual({ error: 'composite finalize hook returned an array; expected a response object' });
  });

  it('log a bad request at warn and a good one at debug', async () => {
    const { server, logs } = serverWithLogs({ composite: { sync } });
    await testHook(server).sync({});
    await testHook(server).sync({ parent });
    expect(logs.filter((line) => line.hook === 'composite sync hook').map((line) => [line.level, line.msg])).toEqual([
      [40, 'bad hook request'],
      [20, 'hook answered'],
    ]);
  });
});

describe('decorator hooks', () => {
  const seen: DecoratorRequest[] = [];
  const server = createHookServer({
    logger: false,
    composite: { sync },
    decorator: {
      prefix: '/labels',
      sync: (request) => {
        seen.push(request);
        return { labels: { decorated: 'yes', old: null }, attachments: [desired({ apiVersion: 'v1', kind: 'ConfigMap', name: `${request.object.metadata.name}-x` })] };
      },
      finalize: (request) => ({ finalized: request.finalizing }),
      customize: () => ({ relatedResources: [] }),
    },
  });
  const hook = testHook(server, { prefix: '/labels' });

  it('serve sync under their prefix, next to a composite controller', async () => {
    const answer = await hook.sync({ object: parent, attachments: { 'ConfigMap.v1': {} } });
    expect(answer.body).toEqual({ labels: { decorated: 'yes', old: null }, attachments: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-x' } }] });
    expect(seen.at(-1)).toEqual({ object: parent, attachments: { 'ConfigMap.v1': {} }, related: {}, finalizing: false });
    expect((await testHook(server).sync({ parent })).statusCode).toBe(200);
  });

  it('serve finalize and customize', async () => {
    expect((await hook.finalize({ object: parent })).body).toEqual({ finalized: true });
    expect((await hook.customize({ parent })).body).toEqual({ relatedResources: [] });
  });

  it('answer 400 to a request with parent instead of object', async () => {
    expect((await hook.sync({ parent })).body).toEqual({ error: 'request.object: is required' });
  });
});

describe('routes', () => {
  it('take custom paths and several controllers of one kind', async () => {
    const server = createHookServer({
      logger: false,
      composite: [
        { prefix: '/a', sync: () => ({ status: { from: 'a' } }) },
        { prefix: '/b', paths: { sync: '/reconcile' }, sync: () => ({ status: { from: 'b' } }) },
      ],
    });
    expect((await testHook(server, { prefix: '/a' }).sync({ parent })).body).toEqual({ status: { from: 'a' } });
    expect((await testHook(server, { prefix: '/b', paths: { sync: '/reconcile' } }).sync({ parent })).body).toEqual({ status: { from: 'b' } });
    expect((await testHook(server).post('/b/sync', { parent })).statusCode).toBe(404);
  });

  it('refuse two handlers on one path, naming both', async () => {
    const message = 'the composite sync hook and the decorator sync hook are both served at POST /sync; give each controller its own prefix';
    expect(() => createHookServer({ logger: false, composite: { sync }, decorator: { sync: () => ({}) } })).toThrow(message);
    const app = Fastify();
    await expect(app.register(hooks, { composite: [{ finalize: sync }, { prefix: '/x' }], decorator: { paths: { customize: '/finalize' }, customize: () => ({}) } })).rejects.toThrow(
      'the composite finalize hook and the decorator customize hook are both served at POST /finalize',
    );
  });

  it('answer 413 with an error body to a request over the body limit', async () => {
    const server = createHookServer({ logger: false, bodyLimit: 100, composite: { sync } });
    const answer = await testHook(server).sync({ parent, children: { 'ConfigMap.v1': { 'web-config': configMap } } });
    expect(answer.statusCode).toBe(413);
    expect(answer.body.error).toMatch(/body/i);
  });

  it('are a plugin for an existing fastify app, under its prefix', async () => {
    const app = Fastify();
    await app.register(hooks, { prefix: '/hooks', composite: { sync } });
    const answer = await testHook(app, { prefix: '/hooks' }).sync({ parent });
    expect(answer.statusCode).toBe(200);
    expect(answer.body.children).toHaveLength(1);
  });
});
