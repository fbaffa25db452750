/**
 * `--hook-module`: a hook service loaded into the `loom render` process and called through fastify's
 * `inject`, so the hook runs exactly as it would serve loom, with no port opened and nothing to start.
 *
 * Accepted module shapes (the module's default export):
 * - a fastify instance (anything with an `inject` method);
 * - an object with such an instance as `app` (what the hook SDK's `createHookServer` returns);
 * - a function, sync or async, taking no arguments and returning either of the above.
 * Each hook is POSTed to its webhook's path (`url`'s path and query, or `path` of the service
 * form) with `Content-Type: application/json`, as loom sends it; 200 with a JSON body is success.
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { Clock } from '../engine/index.ts';
import { describeStatus, excerpt, HookError, type HookKind, type HookRunner } from '../hooks/index.ts';
import { RenderError } from './render-error.ts';

/** What `inject` resolves to, as far as render reads it. */
interface InjectResponse {
  statusCode: number;
  body: string;
}

/** The part of a fastify instance render uses. */
export interface InjectableApp {
  inject(request: { method: 'POST'; url: string; payload: string; headers: Record<string, string> }): Promise<InjectResponse>;
}

function hasInject(value: unknown): value is InjectableApp {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { inject?: unknown }).inject === 'function';
}

/** The app of an instance or of an `{ app }` object. */
function appOf(value: unknown): InjectableApp | undefined {
  if (hasInject(value)) return value;
  const app = typeof value === 'object' && value !== null ? (value as { app?: unknown }).app : undefined;
  return hasInject(app) ? app : undefined;
}

async function appOfExport(value: unknown): Promise<InjectableApp | undefined> {
  const direct = appOf(value);
  if (direct || typeof value !== 'function') return direct;
  return appOf(await (value as () => unknown)());
}

/** Loads the module at `path` (relative to `cwd`) and returns its app; throws a {@link RenderError} naming the flag. */
export async function loadHookModule(path: string, cwd: string): Promise<InjectableApp> {
  const where = `--hook-module ${path}`;
  let app: InjectableApp | undefined;
  try {
    const module = (await import(pathToFileURL(resolve(cwd, path)).href)) as { default?: unknown };
    app = await appOfExport(module.default);
  } catch (error) {
    throw new RenderError(`${where}: cannot load the module: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (!app) throw new RenderError(`${where}: the default export is not a fastify instance, an { app } object, or a function returning one`);
  return app;
}

/** What one module hook needs. */
export interface ModuleHookOptions {
  app: InjectableApp;
  hook: HookKind;
  /** The path (and query) to POST to. */
  path: string;
  /** The webhook's timeout; the call fails when the app has not answered by then. */
  timeoutMs: number;
  clock: Clock;
}


/** `work`, or a {@link HookError} once `ms` have passed or `signal` aborts. */
async function bounded<T>(work: Promise<T>, options: { clock: Clock; ms: number; signal: AbortSignal; label: string }): Promise<T> {
  const stop = new AbortController();
  const expired = options.clock.sleep(options.ms, AbortSignal.any([options.signal, stop.signal])).then(
    () => Promise.reject(new HookError(`${options.label}: timed out after ${options.ms} ms`)),
    (cause: unknown) => Promise.reject(new HookError(`${options.label}: aborted by the caller`, { cause })),
  );
  // Whichever loses the race must not end as an unhandled rejection.
  expired.catch(() => undefined);
  try {
    return await Promise.race([work, expired]);
  } finally {
    stop.abort();
  }
}

function answerOf(label: string, response: InjectResponse): unknown {
  if (response.statusCode !== 200) throw new HookError(`${label}: ${describeStatus(response.statusCode, response.body)}`);
  try {
    return JSON.parse(response.body) as unknown;
  } catch (cause) {
    throw new HookError(`${label}: invalid JSON in the 200 response: ${excerpt(response.body)}`, { cause });
  }
}

/** A {@link HookRunner} that calls the module's app in-process. */
export function moduleHookRunner(options: ModuleHookOptions): HookRunner {
  const label = `${options.hook} hook (module) POST ${options.path}`;
  return {
    async call(request, signal) {
      const sent = options.app
        .inject({ method: 'POST', url: options.path, payload: JSON.stringify(request), headers: { 'content-type': 'application/json' } })
        .catch((cause: unknown) => Promise.reject(new HookError(`${label}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })));
      return answerOf(label, await bounded(sent, { clock: options.clock, ms: options.timeoutMs, signal, label }));
    },
  };
}
