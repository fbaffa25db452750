/**
 * The hello example's sync hook: a HelloWorld parent gets one ConfigMap with a greeting, and its
 * status reports the greeting once the ConfigMap exists. Run alone with `node examples/hello/hook.ts`
 * (listens on 127.0.0.1:8090); `loom dev` serves it in-process.
 */
import Fastify, { type FastifyInstance } from 'fastify';

interface SyncRequest {
  parent: { metadata: { name: string }; spec?: { who?: string } };
  children: Record<string, Record<string, unknown>>;
}

/** The hook's answer for one parent. */
export function helloSync(request: SyncRequest) {
  const name = `${request.parent.metadata.name}-greeting`;
  const greeting = `Hello, ${request.parent.spec?.who ?? 'world'}!`;
  const observed = Object.keys(request.children['ConfigMap.v1'] ?? {});
  return {
    status: { greeting, ready: observed.includes(name) },
    children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { greeting } }],
  };
}

/** A fastify app serving `POST /sync`. */
export function helloHook(): FastifyInstance {
  const app = Fastify();
  app.post('/sync', (req) => helloSync(req.body as SyncRequest));
  return app;
}

if (import.meta.main) {
  await helloHook().listen({ host: '127.0.0.1', port: 8090 });
}
