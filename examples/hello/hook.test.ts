import { describe, expect, it } from 'vitest';
import { helloHook } from './hook.ts';

describe('hello hook', () => {
  it('asks for a greeting ConfigMap and reports whether it exists', async () => {
    const app = helloHook();
    const parent = { metadata: { name: 'earth' }, spec: { who: 'Earth' } };
    const before = await app.inject({ method: 'POST', url: '/sync', payload: { parent, children: { 'ConfigMap.v1': {} } } });
    expect(before.json()).toEqual({
      status: { greeting: 'Hello, Earth!', ready: false },
      children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'earth-greeting' }, data: { greeting: 'Hello, Earth!' } }],
    });
    const after = await app.inject({ method: 'POST', url: '/sync', payload: { parent, children: { 'ConfigMap.v1': { 'earth-greeting': {} } } } });
    expect(after.json<{ status: unknown }>().status).toEqual({ greeting: 'Hello, Earth!', ready: true });
  });
});
