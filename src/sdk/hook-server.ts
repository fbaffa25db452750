/**
 * A ready-made hook server: a fastify app with the {@link hooks} plugin, `GET /healthz`, a pino
 * logger, request timeouts, and (opt-in) a graceful stop on SIGTERM/SIGINT for a hook run as its
 * own process.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger, LoggerOptions } from 'pino';
import { checkHookPaths, hooks, type HooksOptions } from './hooks-plugin.ts';
import { fastifyTimeouts, type FastifyTimeoutOptions, type ServerTimeouts } from './server-timeouts.ts';

/**
 * Options of {@link createHookServer}: the controllers served, how long a client may take to send a
 * request (see {@link ServerTimeouts}; 30 s for a request, 10 s for its headers), and how the
 * process runs.
 */
export interface HookServerOptions extends HooksOptions, ServerTimeouts {
  /**
   * A pino logger to log through (a child of the host's root, say), pino options for a new one, or
   * `false` for none. Default: pino at `info` on stdout. Each hook call is logged at `debug`, a bad
   * request at `warn`, a failing handler at `error`.
   */
  logger?: Logger | LoggerOptions | false;
  /**
   * Close the server on the first SIGTERM or SIGINT once {@link HookServer.listen} was called, so a
   * hook run as a script (`node hook.ts`) drains in-flight requests and exits 0. Default false: a
   * library embedding the server keeps its own signal handling.
   */
  handleSignals?: boolean;
}

/** Where {@link HookServer.listen} listens. */
export interface ListenOptions {
  /** Default `127.0.0.1`; `0.0.0.0` (or `::`) to be reachable from outside, as in a pod. */
  host?: string;
  /** Default 8080; `0` picks a free port (read it from the returned URL). */
  port?: number;
}

/** A hook server. */
export interface HookServer {
  /** The fastify app: add routes or plugins, or `inject` requests in tests (see {@link testHook}). */
  readonly app: FastifyInstance;
  /** Starts listening; resolves to the base URL, e.g. `http://127.0.0.1:8080`. */
  listen(options?: ListenOptions): Promise<string>;
  /** Stops accepting requests, waits for those in flight, and removes the signal handlers. */
  close(): Promise<void>;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

function isLogger(logger: Logger | LoggerOptions): logger is Logger {
  return typeof (logger as Partial<Logger>).child === 'function' && typeof (logger as Partial<Logger>).info === 'function';
}

function appWith(logger: HookServerOptions['logger'], timeouts: FastifyTimeoutOptions): FastifyInstance {
  // Hooks are called on every resync of every parent: one info line per request would drown the
  // log, so the SDK logs each call itself at debug instead.
  const common = { logController: new LogController({ disableRequestLogging: true }), ...timeouts };
  if (logger === false) return Fastify({ ...common, logger: false });
  if (logger !== undefined && isLogger(logger)) return Fastify({ ...common, loggerInstance: logger }) as unknown as FastifyInstance;
  return Fastify({ ...common, logger: logger ?? { level: 'info' } });
}

/**
 * A fastify app serving the given hook handlers and `GET /healthz`:
 * `createHookServer({ composite: { sync } }).listen({ port: 8080 })`.
 * @throws Error when two handlers would share a path.
 * @throws RangeError when a timeout is negative or not a whole number of milliseconds.
 */
export function createHookServer(options: HookServerOptions = {}): HookServer {
  const { logger, handleSignals = false, requestTimeout: _requestTimeout, headersTimeout: _headersTimeout, ...hookOptions } = options;
  checkHookPaths(hookOptions);
  const app = appWith(logger, fastifyTimeouts(options));
  app.get('/healthz', (_request, reply) => reply.type('text/plain').send('ok'));
  void app.register(hooks, hookOptions);

  const onSignal = (signal: NodeJS.Signals): void => {
    app.log.info({ signal }, 'closing the hook server');
    close().catch((err: unknown) => {
      app.log.error({ err }, 'the hook server did not close cleanly');
      process.exitCode = 1;
    });
  };
  async function close(): Promise<void> {
    for (const signal of SIGNALS) process.off(signal, onSignal);
    await app.close();
  }
  return {
    app,
    async listen({ host = '127.0.0.1', port = 8080 } = {}) {
      const url = await app.listen({ host, port });
      if (handleSignals) for (const signal of SIGNALS) process.once(signal, onSignal);
      return url;
    },
    close,
  };
}
