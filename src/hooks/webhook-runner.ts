/**
 * The HTTP webhook {@link HookRunner}, with Metacontroller's wire behaviour (docs/hook-protocol.md,
 * "Sync and finalize (webhooks)", "Failures and Retry-After", "Webhook TLS, authentication and ETag"):
 * `POST` the request JSON, with `Authorization` when the settings in effect say so and over a custom TLS
 * agent when they carry a CA bundle or client certificate; 200 is success and its body must be JSON (in
 * ETag mode, 304 and 412 reuse the cached body); 429 asks for a retry after `Retry-After`; any other
 * status is an error that quotes the body. Every call is bounded (docs/architecture.md,
 * "Bounded calls"): a whole-request timeout through `AbortSignal` (reading credentials included), and a
 * response size limit.
 */
import { boundedText } from '../api/bounded-text.ts';
import type { ETagConfig } from '../api/controller-spec.ts';
import { createETagCache, etagKeyOf, type ETagCache, type ETagEntry } from './etag-cache.ts';
import { describeStatus, excerpt } from './hook-answer-text.ts';
import { HookError, HookRetryAfterError } from './hook-error.ts';
import { NO_RESPONSE, type HookObserver } from './hook-observer.ts';
import type { HookKind, HookRunner } from './hook-runner.ts';
import { httpPost, type HttpResponse } from './http-post.ts';
import { parseRetryAfter } from './retry-after.ts';
import { createWebhookTransport, type PreparedRequest, type WebhookSecurity, type WebhookTransport } from './webhook-transport.ts';
import { DEFAULT_MAX_RESPONSE_BYTES } from './response-limit.ts';
import { withRemainingTimeout } from './webhook-deadline.ts';
import { admitCall, verdictOf, type CircuitGuard } from './circuit-gate.ts';

/** Reads wall time; the engine's `Clock` fits. Injected so no hook code calls `Date.now()`. */
export interface HookClock {
  /** Milliseconds since the epoch; wall time, because a `Retry-After` date is absolute. */
  now(): number;
}

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
  /** `webhook.etag`; absent or disabled: only 200 is success. */
  etag?: ETagConfig | undefined;
  /** The TLS and auth settings in effect; absent: none (default agent, no `Authorization`). */
  security?: WebhookSecurity | undefined;
  /** Headers to send with each call, read as it starts: the trace context (`traceparent`) of the sync making it. */
  callHeaders?: (() => Record<string, string>) | undefined;
  /** The endpoint's circuit breaker, shared by every runner calling it; absent: none. */
  circuit?: CircuitGuard | undefined;
}

/** A webhook runner holds agents and a response cache: `close` it when its controller stops. */
export interface WebhookRunner extends HookRunner {
  /** Lets go of the TLS agents (after their requests) and the ETag cache; later calls fail. Idempotent. */
  close(): void;
}

interface RunnerConfig {
  url: URL;
  /** "sync hook POST http://host/path": the URL without credentials, query or fragment, safe to log. */
  label: string;
  timeoutMs: number;
  maxResponseBytes: number;
  clock: HookClock;
  observer: HookObserver | undefined;
  callHeaders: (() => Record<string, string>) | undefined;
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
  return { url, label, timeoutMs: options.timeoutMs, maxResponseBytes, clock: options.clock, observer: options.observer, callHeaders: options.callHeaders };
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

/** Both signals of one call: the caller's and the call's own timeout, told apart by identity. */
interface CallSignals {
  /** When the call's timeout ends, on the runner's clock: what is left of it goes to the hook in a header. */
  deadline: number;
  caller: AbortSignal;
  timeout: AbortSignal;
  /** Either. */
  any: AbortSignal;
}

/**
 * The signals of a call that may take `timeoutMs`; `release` drops the timer and the listener on the
 * caller's signal when the call is done. (`AbortSignal.any` over `AbortSignal.timeout` keeps both,
 * and a record on the caller's long-lived signal, until the timeout passes and a GC runs: thousands
 * of them under load.)
 */
function callSignals(caller: AbortSignal, timeoutMs: number, now: number): CallSignals & { release(): void } {
  const timeout = new AbortController();
  const any = new AbortController();
  const timer = setTimeout(() => {
    timeout.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError'));
    any.abort(timeout.signal.reason);
  }, timeoutMs);
  const follow = (): void => any.abort(caller.reason);
  if (caller.aborted) follow();
  else caller.addEventListener('abort', follow, { once: true });
  return {
    deadline: now + timeoutMs, caller, timeout: timeout.signal, any: any.signal,
    release() {
      clearTimeout(timer);
      caller.removeEventListener('abort', follow);
    },
  };
}

/** Why a request got no usable response; the abort reasons are told apart by identity. */
function transportFailure(config: RunnerConfig, cause: unknown, signals: CallSignals): HookError {
  let why: string;
  if (signals.timeout.aborted && cause === signals.timeout.reason) why = `timed out after ${config.timeoutMs} ms`;
  else if (signals.caller.aborted && cause === signals.caller.reason) why = 'aborted by the caller';
  else why = cause instanceof Error ? cause.message : String(cause);
  // The cause's message can quote anything (an API server's answer about a credential): it is cut, as
  // the body of an answer is (`hook-answer-text.ts`).
  return new HookError(boundedText(`${config.label}: ${why}`), { cause });
}

/** The credentials in effect now; a failure to read them is this call's failure, with the hook named. */
async function prepare(config: RunnerConfig, transport: WebhookTransport, signals: CallSignals): Promise<PreparedRequest> {
  try {
    return await transport.prepare(signals.any);
  } catch (cause) {
    throw transportFailure(config, cause, signals);
  }
}

interface Exchange {
  body: Buffer;
  prepared: PreparedRequest;
  /** The cached answer whose ETag this request sends as `If-None-Match`. */
  cached: ETagEntry | undefined;
  /** Told how the request ended, for the circuit breaker: the status when one was read (even if the body then failed), else the observer's `code`. */
  ended(code: string): void;
}

async function exchange(config: RunnerConfig, sent: Exchange, signals: CallSignals): Promise<HttpResponse> {
  const asked = { ...config.callHeaders?.(), ...sent.prepared.headers, ...(sent.cached ? { 'If-None-Match': sent.cached.etag } : {}) };
  const headers = withRemainingTimeout(asked, signals.deadline, config.clock.now());
  config.observer?.requestStarted();
  const started = config.clock.now();
  let code: string | undefined;
  // The status line alone says the server answered, even when its body then fails (too large, cut short).
  let status: string | undefined;
  try {
    const response = await httpPost({
      url: config.url, body: sent.body, signal: signals.any, maxResponseBytes: config.maxResponseBytes, headers, agent: sent.prepared.agent,
      onStatus: (answered) => (status = String(answered)),
    });
    code = String(response.status);
    return response;
  } catch (cause) {
    throw transportFailure(config, cause, signals);
  } finally {
    const ended = code ?? noResponseCode(signals);
    sent.ended(status ?? ended);
    config.observer?.requestFinished({ code: ended, durationSeconds: (config.clock.now() - started) / 1000 });
  }
}

/** Why a request got no response, for the metrics. */
function noResponseCode(signals: CallSignals): string {
  if (signals.timeout.aborted) return NO_RESPONSE.timeout;
  return signals.caller.aborted ? NO_RESPONSE.aborted : NO_RESPONSE.error;
}

function parseJson(config: RunnerConfig, body: Buffer, what: string): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new HookError(`${config.label}: invalid JSON in ${what}: ${excerpt(text)}`, { cause });
  }
}

/** The ETag mode of one runner: its cache, and the key of the request at hand. */
interface ETagState {
  cache: ETagCache;
  key: string;
  cached: ETagEntry | undefined;
}

const NOT_MODIFIED = new Set([304, 412]);

/** A 200: its body, which refreshes the cache entry in ETag mode. */
function accept(config: RunnerConfig, response: HttpResponse, etag: ETagState | undefined): unknown {
  const parsed = parseJson(config, response.body, 'the 200 response');
  const tag = response.headers.etag;
  // A 200 without an ETag ends the entry: an answer nobody can validate again is not worth keeping.
  if (etag && tag) etag.cache.set(etag.key, { etag: tag, body: response.body });
  else etag?.cache.delete(etag.key);
  return parsed;
}

function interpret(config: RunnerConfig, response: HttpResponse, etag: ETagState | undefined): unknown {
  if (response.status === 200) return accept(config, response, etag);
  if (etag?.cached && NOT_MODIFIED.has(response.status)) return parseJson(config, etag.cached.body, `the cached response (ETag ${etag.cached.etag})`);
  if (response.status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], config.clock.now());
    throw new HookRetryAfterError(`${config.label}: HTTP 429, retry after ${retryAfterMs} ms`, retryAfterMs);
  }
  const unasked = etag && NOT_MODIFIED.has(response.status) ? ' (no If-None-Match was sent)' : '';
  throw new HookError(`${config.label}: ${describeStatus(response.status, response.body.toString('utf8'), unasked)}`);
}

function etagCacheOf(options: WebhookRunnerOptions): ETagCache | undefined {
  if (!options.etag?.enabled) return undefined;
  const seconds = options.etag.cacheTimeoutSeconds ?? 0;
  return createETagCache({ clock: options.clock, ttlMs: seconds * 1000 });
}

/**
 * A {@link HookRunner} that POSTs to a webhook. Throws a `HookError` at once for an unusable URL,
 * timeout or size limit, settings that refer to Secrets or ConfigMaps without `security.reader`, and
 * an inline CA bundle that does not parse, so a misconfigured hook is reported when its controller starts.
 *
 * Each call rejects with a `HookError` for: a credential it cannot read (a missing Secret, ConfigMap
 * or key, named with namespace, name, key and the setting; nothing is sent), PEM material that does not
 * parse (naming where it came from), connection and TLS errors (the `cause` carries `code`, e.g.
 * `ECONNREFUSED`), the timeout ("timed out after N ms", reading credentials included), the caller's
 * abort ("aborted by the caller", `cause` = the signal's reason), a body over the size limit or cut
 * short, a non-JSON 200 body ("invalid JSON", with the body's start), and any status but 200 and 429
 * (status code and the body's first 200 characters) — in ETag mode, 304 and 412 answer a request that
 * sent `If-None-Match` with the cached body instead.
 * A 429 rejects with a `HookRetryAfterError` instead.
 */
export function createWebhookRunner(options: WebhookRunnerOptions): WebhookRunner {
  const config = configOf(options);
  const transport = createWebhookTransport(options.security, config.url);
  const cache = etagCacheOf(options);
  let closed = false;
  return {
    call: async (request, caller) => {
      const body = encode(config, request);
      if (closed) throw new HookError(`${config.label}: the runner is closed`);
      const admission = admitCall(options.circuit, config.label);
      let ended: string | undefined;
      const signals = callSignals(caller, config.timeoutMs, config.clock.now());
      try {
        const prepared = await prepare(config, transport, signals);
        try {
          const key = cache && etagKeyOf(request);
          const etag = cache && key !== undefined ? { cache, key, cached: cache.get(key) } : undefined;
          const sent = { body, prepared, cached: etag?.cached, ended: (code: string) => (ended = code) };
          return interpret(config, await exchange(config, sent, signals), etag);
        } finally {
          prepared.release();
        }
      } finally {
        signals.release();
        if (admission) options.circuit?.breaker.settle(admission, verdictOf(ended));
      }
    },
    close() {
      closed = true;
      transport.close();
    },
  };
}
