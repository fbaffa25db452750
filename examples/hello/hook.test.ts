import { testHook } from 'kube-loom-sdk';
import { describe, expect, it } from 'vitest';
import { helloHook } from './hook.ts';

const parent = { apiVersion: 'examples.loom.dev/v1', kind: 'HelloWorld', metadata: { name: 'earth', namespace: 'default' }, spec: { who: 'Earth' } };
const greeting = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'earth-greeting', namespace: 'default' }, data: { greeting: 'Hello, Earth!' } };

describe('hello hook', () => {
  const hook = testHook(helloHook({ logger: false }));

  it('asks for a greeting ConfigMap and reports that it does not exist yet', async () => {
    const { statusCode, body } = await hook.sync({ parent, children: { 'ConfigMap.v1': {} } });
    expect(statusCode).toBe(200);
    expect(body).toEqual({
      status: { greeting: 'Hello, Earth!', ready: false },
      children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'earth-greeting' }, data: { greeting: 'Hello, Earth!' } }],
    });
  });

  it.each([
    ['v1', { 'earth-greeting': greeting }],
    ['v2', { 'default/earth-greeting': greeting }],
  ])('reports ready once the ConfigMap exists (%s keys)', async (_version, observed) => {
    const { body } = await hook.sync({ parent, children: { 'ConfigMap.v1': observed } });
    expect(body.status).toEqual({ greeting: 'Hello, Earth!', ready: true });
  });

  it('greets the world when the parent names nobody', async () => {
    const { body } = await hook.sync({ parent: { ...parent, spec: {} } });
    expect(body.status).toEqual({ greeting: 'Hello, world!', ready: false });
  });

  it('answers 400 to a request without a parent', async () => {
    expect(await hook.sync({ children: {} })).toMatchObject({ statusCode: 400, body: { error: 'request.parent: is required' } });
  });
});
