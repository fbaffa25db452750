/**
 * Calling a hook server's routes in a unit test without a socket (fastify's `inject`): the request
 * goes through the same checks, handler and error answers as over HTTP.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { isRecord } from '../api/index.ts';
import type { HookPaths } from './hooks-plugin.ts';
import type { HookServer } from './hook-server.ts';
import type { CompositeResponse, CustomizeResponse, DecoratorResponse } from './types.ts';

/** Any field a hook answer may carry: a response of either kind, or the `error` of a 400/500. */
export type HookAnswerBody = CompositeResponse & DecoratorResponse & CustomizeResponse & { error?: string };

/** What a route answered. */
export interface HookAnswer {
  statusCode: number;
  /** The `Content-Type` header (`application/json` for every hook answer). */
  contentType: string | undefined;
  /** The JSON body; `{}` when the body is not a JSON object (then see `text`). */
  body: HookAnswerBody;
  /** The raw body. */
  text: string;
}

/** Options of {@link testHook}: where the controller under test is served. */
export interface TestHookOptions {
  /** The prefix the controller was given. Default `''`. */
  prefix?: string;
  /** The paths the controller was given. Default `/sync`, `/finalize`, `/customize`. */
  paths?: HookPaths;
}

/** Calls one controller's routes. Requests are sent as given (`unknown`, to test bad ones too). */
export interface HookTester {
  sync(request: unknown): Promise<HookAnswer>;
  finalize(request: unknown): Promise<HookAnswer>;
  customize(request: unknown): Promise<HookAnswer>;
  /** `POST path` with `body` as JSON (or as is when it is a string). */
  post(path: string, body: unknown): Promise<HookAnswer>;
  /** `GET /healthz`. */
  healthz(): Promise<HookAnswer>;
}

function bodyOf(response: LightMyRequestResponse): HookAnswerBody {
  try {
    const parsed: unknown = JSON.parse(response.body);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {}; // not JSON (healthz answers `ok`): `text` has it
  }
}

function answerOf(response: LightMyRequestResponse): HookAnswer {
  const contentType = response.headers['content-type'];
  return {
    statusCode: response.statusCode,
    contentType: typeof contentType === 'string' ? contentType : undefined,
    body: bodyOf(response),
    text: response.body,
  };
}

/**
 * A tester for the hook server (or any fastify app with the {@link hooks} plugin):
 * `const { statusCode, body } = await testHook(server).sync(request)`.
 */
export function testHook(server: HookServer | FastifyInstance, options: TestHookOptions = {}): HookTester {
  const app = 'app' in server ? server.app : server;
  const prefix = options.prefix ?? '';
  const post = async (path: string, body: unknown) => {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    return answerOf(await app.inject({ method: 'POST', url: path, payload, headers: { 'content-type': 'application/json' } }));
  };
  return {
    sync: (request) => post(`${prefix}${options.paths?.sync ?? '/sync'}`, request),
    finalize: (request) => post(`${prefix}${options.paths?.finalize ?? '/finalize'}`, request),
    customize: (request) => post(`${prefix}${options.paths?.customize ?? '/customize'}`, request),
    post,
    healthz: async () => answerOf(await app.inject({ method: 'GET', url: '/healthz' })),
  };
}
