/**
 * The two HTTP endpoints of `loom run`, on the addresses Metacontroller uses: health probes
 * (`/healthz`, `/readyz`) on `--health-probe-bind-address` and `/metrics` on `--metrics-address`.
 * Three GET routes need no framework: `node:http` serves them, which keeps fastify (about 20 MiB
 * resident once loaded) out of the host process. Both close on the host's shutdown signal.
 */
import type * as Http from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from './listen-address.ts';

// Required, not imported: importing `node:http` as an ES module reads its lazy WebSocket getters, which
// load Node's bundled undici (~14 MiB resident) that loom never uses.
const { createServer } = createRequire(import.meta.url)('node:http') as typeof Http;

/** What the probe server answers from. */
export interface ProbeState {
  /** Ready = every informer cache has completed its first list; otherwise the reason. */
  notReadyReason(): string | undefined;
}

/** An answer: status, content type and body. */
interface Answer {
  status: number;
  contentType?: string;
  body: string;
}

/** Answers a GET of one of `routes`' paths (query ignored); anything else is a 404 or 405. */
export type Routes = Record<string, () => Answer | Promise<Answer>>;

function handler(routes: Routes): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const route = routes[(req.url ?? '/').split('?')[0]!];
    const reply = ({ status, contentType = 'text/plain; charset=utf-8', body }: Answer): void => {
      res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) }).end(req.method === 'HEAD' ? undefined : body);
    };
    if (!route) return reply({ status: 404, body: 'not found' });
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply({ status: 405, body: 'method not allowed' });
    Promise.resolve().then(route).then(reply, (err: unknown) => reply({ status: 500, body: err instanceof Error ? err.message : String(err) }));
  };
}

/** The probe routes. */
export function probeRoutes(state: ProbeState): Routes {
  return {
    '/healthz': () => ({ status: 200, body: 'ok' }),
    '/readyz': () => {
      const reason = state.notReadyReason();
      return reason === undefined ? { status: 200, body: 'ok' } : { status: 503, body: `not ready: ${reason}` };
    },
  };
}

/** What `/metrics` serves: a metrics registry, seen only through what the route needs. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** The metrics route. */
export function metricsRoutes(registry: MetricsSource): Routes {
  return { '/metrics': async () => ({ status: 200, contentType: registry.contentType, body: await registry.metrics() }) };
}

/** Serves `routes` until `signal` aborts; resolves with the bound port (useful when asked for port 0). */
export async function serveUntil(routes: Routes, address: ListenAddress, signal: AbortSignal): Promise<number> {
  const server: Server = createServer(handler(routes));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address.host, port: address.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const close = (): void => {
    server.close();
    server.closeAllConnections();
  };
  // Aborted while it was starting to listen (a SIGTERM during start-up): close at once.
  if (signal.aborted) close();
  else signal.addEventListener('abort', close, { once: true });
  return (server.address() as AddressInfo).port;
}
