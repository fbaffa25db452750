/** The same hook in the hook SDK's shape: the default export is an async function returning `{ app }`. */
import Fastify from 'fastify';
import { exposeSync } from './hook.ts';

export default async function createHook() {
  const app = Fastify();
  app.post('/sync', (request) => exposeSync(request.body as Parameters<typeof exposeSync>[0]));
  await app.ready();
  return { app };
}
