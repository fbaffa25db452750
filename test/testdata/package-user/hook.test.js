// The user's unit test, run by `node --test`: testHook calls the hook without a socket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testHook } from 'kube-loom-sdk';
import { hookServer } from './hook.js';

const parent = { apiVersion: 'example.com/v1', kind: 'HelloWorld', metadata: { name: 'earth', namespace: 'default' }, spec: { who: 'Earth' } };

test('asks for one greeting ConfigMap', async () => {
  const { statusCode, body } = await testHook(hookServer({ logger: false })).sync({ parent, children: { 'ConfigMap.v1': {} } });
  assert.equal(statusCode, 200);
  assert.deepEqual(body.children, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'earth-greeting' }, data: { greeting: 'Hello, Earth!' } }]);
  assert.deepEqual(body.status, { greeting: 'Hello, Earth!', ready: false });
});

test('answers 400 to a request without a parent', async () => {
  const { statusCode } = await testHook(hookServer({ logger: false })).sync({ children: {} });
  assert.equal(statusCode, 400);
});
