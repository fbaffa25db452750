/**
 * The `hooks` fastify plugin: one `POST` route per handler, each checking the request (400 naming
 * the bad field), calling the handler (500 when it throws: a generic message naming the request, the
 * error itself logged; the message of an error meant for the caller, see hook-answer-error.ts, is answered) and answering its result as
 * `application/json`. Register it on any fastify app, once per controller or with a list.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyError, FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import { isRecord } from '../api/index.ts';
import { isExposed } from './hook-answer-error.ts';
import { hookCallOf, type HookCall } from './hook-call.ts';
import { checkCompositeRequest, checkCustomizeRequest, checkDecoratorRequest, type CheckedRequest } from './request-validation.ts';
import type {
  CompositeRequest, CompositeResponse, CustomizeRequest, CustomizeResponse, DecoratorRequest, DecoratorResponse, HookHandler,
} from './types.ts';

/** Paths of one controller's hooks, below its `prefix`. */
export interface HookPaths {
  /** Default `/sync`. */
  sync?: string;
  /** Default `/finalize`. */
  finalize?: string;
  /** Default `/customize`. */
  customize?: string;
}

/** Where one controller's hooks are served: `POST <prefix><path>`. */
export interface HookPlacement {
  /** Prepended to every path, e.g. `/hello` for `/hello/sync`. Default `''`. */
  prefix?: string;
  paths?: HookPaths;
}

/** The handlers of one CompositeController; each one given gets a route. */
export interface CompositeHooks extends HookPlacement {
  sync?: HookHandler<CompositeRequest, CompositeResponse>;
  finalize?: HookHandler<CompositeRequest, CompositeResponse>;
  customize?: HookHandler<CustomizeRequest, CustomizeResponse>;
}

/** The handlers of one DecoratorController; each one given gets a route. */
export interface DecoratorHooks extends HookPlacement {
  sync?: HookHandler<DecoratorRequest, DecoratorResponse>;
  finalize?: HookHandler<DecoratorRequest, DecoratorResponse>;
  customize?: HookHandler<CustomizeRequest, CustomizeResponse>;
}

/** Options of {@link hooks}: the controllers served, one object or a list of each kind. */
export interface HooksOptions {
  composite?: CompositeHooks | readonly CompositeHooks[];
  decorator?: DecoratorHooks | readonly DecoratorHooks[];
  /**
   * Largest request body accepted, in bytes. Requests carry every observed child in full, so the
   * default is 32 MiB rather than fastify's 1 MiB.
   */
  bodyLimit?: number;
}

/** The default {@link HooksOptions.bodyLimit}. */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

/** One route: where, what it is called in messages, how its body is checked and what answers it. */
interface HookRoute {
  path: string;
  name: string;
  check(body: unknown): CheckedRequest<unknown>;
  handle(request: unknown, call: HookCall): unknown;
}

type Kind = 'composite' | 'decorator';
type HookName = 'sync' | 'finalize' | 'customize';

function listOf<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

function checkerFor(kind: Kind, hook: HookName): (body: unknown) => CheckedRequest<unknown> {
  if (hook === 'customize') return checkCustomizeRequest;
  const check = kind === 'composite' ? checkCompositeRequest : checkDecoratorRequest;
  return (body) => check(body, hook === 'finalize');
}

function routesOf(kind: Kind, hooks: CompositeHooks | DecoratorHooks): HookRoute[] {
  const names: HookName[] = ['sync', 'finalize', 'customize'];
  return names.flatMap((hook) => {
    const handler = hooks[hook] as ((request: unknown, call: HookCall) => unknown) | undefined;
    if (handler === undefined) return [];
    const path = `${hooks.prefix ?? ''}${hooks.paths?.[hook] ?? `/${hook}`}`;
    return [{ path, name: `${kind} ${hook} hook`, check: checkerFor(kind, hook), handle: handler }];
  });
}

/** Every route of `options`; two handlers on one path are a setup mistake, reported by name. */
function allRoutes(options: HooksOptions): HookRoute[] {
  const routes = [
    ...listOf(options.composite).flatMap((hooks) => routesOf('composite', hooks)),
    ...listOf(options.decorator).flatMap((hooks) => routesOf('decorator', hooks)),
  ];
  const seen = new Map<string, string>();
  for (const route of routes) {
    const other = seen.get(route.path);
    if (other !== undefined) throw new Error(`the ${other} and the ${route.name} are both served at POST ${route.path}; give each controller its own prefix`);
    seen.set(route.path, route.name);
  }
  return routes;
}

/** Sends `body` as `application/json` exactly (fastify would add a charset parameter). */
function sendJson(reply: FastifyReply, statusCode: number, body: unknown): FastifyReply {
  return reply.code(statusCode).type('application/json').serializer((payload) => JSON.stringify(payload)).send(body);
}

function describeResult(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/**
 * Runs one answer in a span that continues the caller's trace: loom sends `traceparent`, so with an
 * OpenTelemetry SDK registered in the hook's process, the hook's span (and any span its handler
 * starts) shows inside loom's sync. Without an SDK the OpenTelemetry API does nothing.
 */
function inHookSpan(route: HookRoute, request: FastifyRequest, reply: FastifyReply, send: () => Promise<unknown>): Promise<FastifyReply> {
  const caller = propagation.extract(context.active(), request.headers);
  const attributes = { 'http.request.method': 'POST', 'http.route': route.path };
  return trace.getTracer('kube-loom-sdk').startActiveSpan(route.name, { kind: SpanKind.SERVER, attributes }, caller, async (span) => {
    try {
      await send();
    } finally {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    return reply;
  });
}

/**
 * What a caller is told of a handler's error: its message only when the handler meant it for the
 * caller; otherwise which request failed, so the logged detail can be found, and nothing of the error.
 */
function failureAnswer(route: HookRoute, request: FastifyRequest, err: unknown): string {
  if (isExposed(err)) return `${route.name} failed: ${err.message}`;
  return `${route.name} failed (request ${request.id}); the hook server's log says why`;
}

async function answer(route: HookRoute, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const checked = route.check(request.body);
  if (!checked.ok) {
    request.log.warn({ hook: route.name, problem: checked.error }, 'bad hook request');
    return sendJson(reply, 400, { error: checked.error });
  }
  let result: unknown;
  try {
    result = await route.handle(checked.request, hookCallOf(request, reply));
  } catch (err) {
    request.log.error({ hook: route.name, requestId: request.id, err }, 'hook handler failed');
    return sendJson(reply, 500, { error: failureAnswer(route, request, err) });
  }
  if (!isRecord(result)) {
    const error = `${route.name} returned ${describeResult(result)}; expected a response object`;
    request.log.error({ hook: route.name }, error);
    return sendJson(reply, 500, { error });
  }
  request.log.debug({ hook: route.name }, 'hook answered');
  return sendJson(reply, 200, result);
}

/** Bodies fastify itself rejects (not JSON, too large, wrong media type) answer `{error}` too. */
function answerFastifyError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const statusCode = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
  request.log[statusCode < 500 ? 'warn' : 'error']({ requestId: request.id, err: error }, 'hook request failed');
  // A client error says what was wrong with the request; a server error is the server's own business.
  const message = statusCode < 500 ? error.message : `the hook server failed (request ${request.id}); its log says why`;
  return sendJson(reply, statusCode, { error: message });
}

/**
 * Checks that no two handlers of `options` share a path, so a setup mistake shows where the server
 * is created rather than when it first starts.
 * @throws Error naming both handlers.
 */
export function checkHookPaths(options: HooksOptions): void {
  allRoutes(options);
}

/**
 * A fastify plugin serving hook handlers: `app.register(hooks, { composite: { sync } })`. Routes and
 * error answers stay inside the plugin's scope; fastify's own `prefix` option works as usual.
 * Registration fails when two handlers would share a path.
 */
export const hooks: FastifyPluginCallback<HooksOptions> = (app, options, done) => {
  let routes: HookRoute[];
  try {
    routes = allRoutes(options);
  } catch (err) {
    done(err as Error);
    return;
  }
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  app.setErrorHandler(answerFastifyError);
  for (const route of routes) {
    app.post(route.path, { bodyLimit }, (request, reply) => inHookSpan(route, request, reply, () => answer(route, request, reply)));
  }
  done();
};
