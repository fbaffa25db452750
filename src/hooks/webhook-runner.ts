/**
 * The HTTP webhook {@link HookRunner}, with Metacontroller's wire behaviour (contract §1.2, §3): `POST`
 * the request JSON; 200 is success and its body must be JSON; 429 asks for a retry after `Retry-After`;
 * any other status is an error that quotes the body. Every call is bounded (ARCHITECTURE.md, item 9): a
 * whole-request timeout through `AbortSignal`, and a response size limit.
 */
import { HookError, HookRetryAfterError } from './hook-error.ts';
import { NO_RESPONSE_CODE, type HookObserver } from './hook-observer.ts';
import type { HookKind, HookRunner } from './hook-runner.ts';
import { httpPost, type HttpResponse } from './http-post.ts';
import { parseRetryAfter } from './retry-after.ts';

/** Reads wall time; the engine's `Clock` fits. Injected so no hook code calls `Date.now()`. */
export interface HookClock {
  /** Milliseconds since the epoch; wall time, because a `Retry-After` date is absolute. */
  now(): number;
}

/** A response body larger than this (16 MiB) fails the call unless `maxResponseBytes` says otherwise. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** How much of a response body an error message quotes. */
const BODY_EXCERPT_CHARS = 200;

/** Everything one webhook runner needs; resolved once per controller generation. */
export interface WebhookRunnerOptions {
  /** Where to POST; `http:` or `https:` (see `webhookUrl` for the service form). */
  url: string;
  /** Whole-request bound, connect to last body byte; must be positive. Metacontroller's default is 10 s. */
  timeoutMs: number;
  /** Which hook this is; named in error messages. */
  hook: HookKind;
  /** Measures request duration and dates a `Retry-After`. */
  clock: HookClock;
  observer?: HookObserver | undefined;
  /** Defaults to {@link DEFAULT_MAX_RESPONSE_BYTES}. */
  maxResponseBytes?: number | undefined;
}

interface RunnerConfig {
  url: URL;
  /** "sync hook POST http://host/path": the URL without credentials, query or fragment, safe to log. */
  label: string;
  timeoutMs: number;
  maxResponseBytes: number;
  clock: HookClock;
  observer: HookObserver | undefined;
}

function parseUrl(raw: string, hook: HookKind): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (cause) {
    throw new HookError(`${hook} hook: url "${raw}" is not a valid URL`, { cause });
  }
  // Not quoting `raw` here: it parsed, so it may carry credentials.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HookError(`${hook} hook: url scheme "${url.protocol}" must be http or https`);
  }
  return url;
}

function configOf(options: WebhookRunnerOptions): RunnerConfig {
  const url = parseUrl(options.url, options.hook);
  const label = `${options.hook} hook POST ${url.origin}${url.pathname}`;
  const positive = (n: number): boolean => Number.isFinite(n) && n > 0;
  if (!positive(options.timeoutMs)) throw new HookError(`${label}: timeout ${options.timeoutMs} ms must be positive`);
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!positive(maxResponseBytes)) throw new HookError(`${label}: response limit ${maxResponseBytes} bytes must be positive`);
  return { url, label, timeoutMs: options.timeoutMs, maxResponseBytes, clock: options.clock, observer: options.observer };
}

function encode(config: RunnerConfig, request: unknown): Buffer {
  let json: string | undefined;
  try {
    json = JSON.stringify(request);
  } catch (cause) {
    throw new HookError(`${config.label}: the request cannot be encoded as JSON`, { cause });
  }
  if (json === undefined) throw new HookError(`${config.label}: the request cannot be encoded as JSON`);
  return Buffer.from(json, 'utf8');
}

function excerpt(text: string): string {
  return text.length > BODY_EXCERPT_CHARS ? `${text.slice(0, BODY_EXCERPT_CHARS)}…` : text;
}

/** Why a request got no usable response; the abort reasons are told apart by identity. */
function transportFailure(config: RunnerConfig, cause: unknown, signals: { caller: AbortSignal; timeout: AbortSignal }): HookError {
  let why: string;
  if (signals.timeout.aborted && cause === signals.timeout.reason) why = `timed out after ${config.timeoutMs} ms`;
  else if (signals.caller.aborted && cause === signals.caller.reason) why = 'aborted by the caller';
  else why = cause instanceof Error ? cause.message : String(cause);
  return new HookError(`${config.label}: ${why}`, { cause });
}

async function exchange(config: RunnerConfig, body: Buffer, caller: AbortSignal): Promise<HttpResponse> {
  const timeout = AbortSignal.timeout(config.timeoutMs);
  const signal = AbortSignal.any([caller, timeout]);
  config.observer?.requestStarted();
  const started = config.clock.now();
  let code = NO_RESPONSE_CODE;
  try {
    const response = await httpPost({ url: config.url, body, signal, maxResponseBytes: config.maxResponseBytes });
    code = String(response.status);
    return response;
  } catch (cause) {
    throw transportFailure(config, cause, { caller, timeout });
  } finally {
    config.observer?.requestFinished({ code, durationSeconds: (config.clock.now() - started) / 1000 });
  }
}

function interpret(config: RunnerConfig, response: HttpResponse): unknown {
  const text = response.body.toString('utf8');
  if (response.status === 200) {
    try {
      return JSON.parse(text) as unknown;
    } catch (cause) {
      throw new HookError(`${config.label}: invalid JSON in the 200 response: ${excerpt(text)}`, { cause });
    }
  }
  if (response.status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], config.clock.now());
    throw new HookRetryAfterError(`${config.label}: HTTP 429, retry after ${retryAfterMs} ms`, retryAfterMs);
  }
  throw new HookError(`${config.label}: HTTP ${response.status}: ${excerpt(text)}`);
}

/**
 * A {@link HookRunner} that POSTs to a webhook. Throws a `HookError` at once for an unusable URL,
 * timeout or size limit, so a misconfigured hook is reported when its controller starts.
 *
 * Each call rejects with a `HookError` for: connection errors (the `cause` carries `code`, e.g.
 * `ECONNREFUSED`), the timeout ("timed out after N ms"), the caller's abort ("aborted by the caller",
 * `cause` = the signal's reason), a body over the size limit or cut short, a non-JSON 200 body
 * ("invalid JSON", with the body's start), and any status but 200 and 429 (status code and the body's
 * first 200 characters).
 * A 429 rejects with a `HookRetryAfterError` instead. ETag mode (304/412) is not handled here yet.
 */
export function createWebhookRunner(options: WebhookRunnerOptions): HookRunner {
  const config = configOf(options);
  return {
    call: async (request, signal) => {
      const body = encode(config, request);
      return interpret(config, await exchange(config, body, signal));
    },
  };
}
