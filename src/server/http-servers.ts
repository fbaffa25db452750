/**
 * The two HTTP endpoints of `loom run`, on the addresses Metacontroller uses: health probes
 * (`/healthz`, `/readyz`) on `--health-probe-bind-address` and `/metrics` on `--metrics-address`.
 * Served by fastify; both close on the host's shutdown signal.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { ListenAddress } from './listen-address.ts';

/** What the probe server answers from. */
export interface ProbeState {
  /** Ready = every informer cache has completed its first list; otherwise the reason. */
  notReadyReason(): string | undefined;
}

/** Builds the probe app (exported so tests can `inject` without a socket). */
export function probeApp(state: ProbeState): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/healthz', () => 'ok');
  app.get('/readyz', async (_req, reply) => {
    const reason = state.notReadyReason();
    if (reason !== undefined) return reply.code(503).send(`not ready: ${reason}`);
    return 'ok';
  });
  return app;
}

/** Builds the metrics app. */
export function metricsApp(registry: Registry): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/metrics', async (_req, reply) => reply.header('Content-Type', registry.contentType).send(await registry.metrics()));
  return app;
}

/** Listens until `signal` aborts; resolves with the bound port (useful when asked for port 0). */
export async function serveUntil(app: FastifyInstance, address: ListenAddress, signal: AbortSignal): Promise<number> {
  await app.listen({ host: address.host, port: address.port });
  signal.addEventListener('abort', () => void app.close(), { once: true });
  const bound = app.server.address();
  return typeof bound === 'object' && bound ? bound.port : address.port;
}
