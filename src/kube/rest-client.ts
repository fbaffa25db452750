/**
 * The one way loom talks to the API server: JSON over HTTPS with the credentials of a kubeconfig,
 * over a keep-alive connection pool, through the cluster's `proxy-url` when it has one. The kubeconfig
 * (kube-config.ts) supplies the server and each request's TLS material and credentials; requests are
 * plain `node:https`, so every header, query parameter and status code is ours to control (apply
 * content types, preconditions, watch streams) and to count.
 */
import type * as Http from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { createRequire } from 'node:module';
import { request as httpsRequest, Agent as HttpsAgent, type RequestOptions as HttpsRequestOptions } from 'node:https';
import { KubeApiError } from './kube-api-error.ts';
import { bodyOf, boundedLines, DEFAULT_MAX_RESPONSE_BYTES, readBounded } from './response-body.ts';
import { boundedSignal } from './bounded-signal.ts';
import { resendOnceIfRefused } from './refused-credentials.ts';
import { defaultUserAgent } from './user-agent.ts';

// Required, not imported: importing `node:http` as an ES module reads its lazy WebSocket getters, which
// load Node's bundled undici (~14 MiB resident) that loom never uses.
const { request: httpRequest, Agent: HttpAgent } = createRequire(import.meta.url)('node:http') as typeof Http;

/** Query parameters; `undefined` values are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** One API request. */
export interface RestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query | undefined;
  body?: unknown;
  /** Defaults to `application/json`. */
  contentType?: string | undefined;
  /** Defaults to `application/json`. */
  accept?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Whose request this is, for a fair share of the client rate limit (`throttle`); absent: the host's. */
  tenant?: string | undefined;
  /**
   * A second signal the request is given up on, long-lived (a controller's lifetime): followed by a
   * listener removed as soon as the request is done, so none piles up on it.
   */
  stop?: AbortSignal | undefined;
}

/** One event of a watch stream. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: { metadata?: { resourceVersion?: string } } & Record<string, unknown>;
}

/**
 * Called after every answer; feeds request metrics and the tests that count writes. `contentEncoding`
 * is how the answer came (`gzip` when the API server compressed it), before loom decompressed it.
 */
export type RequestObserver = (info: { method: string; path: string; status: number; contentEncoding?: string | undefined }) => void;

/** A connection to one API server. */
export interface RestClient {
  /** `https://host:port` of the API server. */
  readonly server: string;
  /** Sends a request; resolves with the parsed JSON body, rejects with {@link KubeApiError} on non-2xx. */
  request<T = unknown>(req: RestRequest): Promise<T>;
  /**
   * Streams a watch; ends when the server closes it; rejects with {@link KubeApiError} on an ERROR
   * event. `onEstablished` is called once the server has accepted it, before any event.
   */
  watch(path: string, query: Query, signal: AbortSignal, onEstablished?: () => void): AsyncIterable<WatchEvent>;
}

/**
 * What a client needs of a kubeconfig: the current cluster, and the TLS options and credentials of
 * each request (applied per request: tokens and client certificates rotate). loom's own kubeconfig
 * (`loadKubeConfig`) has it; so has client-node's `KubeConfig`, which tests hand in.
 */
export interface KubeConnection {
  getCurrentCluster(): { readonly server: string; readonly proxyUrl?: string | undefined } | null;
  applyToHTTPSOptions(opts: HttpsRequestOptions): Promise<void>;
  /**
   * The server answered 401 to a request `opts` were applied to; true when applying options anew may
   * give credentials it accepts (an exec plugin's credential dropped, to be fetched again). Without
   * it (client-node's `KubeConfig`), a 401 is final.
   */
  credentialsRefused?(opts: HttpsRequestOptions): boolean;
}

/** How to build a {@link RestClient}. */
export interface RestClientOptions {
  kubeConfig: KubeConnection;
  /**
   * Awaited before each request: the client-side QPS limit (`--client-go-qps/burst`). It is handed the
   * request's signal (which carries its one-minute bound): a request given up while it waits must leave
   * the line rather than spend a slot, so it rejects when the signal aborts.
   */
  throttle?: ((tenant: string | undefined, signal: AbortSignal | undefined) => Promise<void>) | undefined;
  observe?: RequestObserver | undefined;
  /**
   * The most bytes one answer, or one event of a watch, may decompress to; default
   * {@link DEFAULT_MAX_RESPONSE_BYTES}. Beyond it the request fails and reading stops.
   */
  maxResponseBytes?: number | undefined;
  /** The `User-Agent` of every request; default `loom/<version> (<platform>/<arch>) node/<version>`. */
  userAgent?: string | undefined;
}

function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

function apiError(status: number, text: string, retryAfter: string | undefined): KubeApiError {
  let parsed: { message?: string; reason?: string; details?: { retryAfterSeconds?: number } } = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // Not a Status object (a proxy's HTML page, say): the raw text below is the message.
  }
  const retryAfterSeconds = parsed.details?.retryAfterSeconds ?? (retryAfter ? Number(retryAfter) || undefined : undefined);
  return new KubeApiError(`${status} ${parsed.reason ?? ''}: ${parsed.message ?? text.slice(0, 300)}`.replace(' :', ':'), {
    status, reason: parsed.reason ?? String(status), retryAfterSeconds,
  });
}

interface RawWatchEvent {
  type: string;
  object: WatchEvent['object'] & { code?: number; reason?: string; message?: string };
}

/** One line of a watch stream; an ERROR event (410 Gone, say) becomes a {@link KubeApiError}. */
function parseWatchLine(path: string, line: string): WatchEvent | undefined {
  if (!line.trim()) return undefined;
  const event = JSON.parse(line) as RawWatchEvent;
  if (event.type !== 'ERROR') return event as WatchEvent;
  const { code = 500, reason = String(code), message = '' } = event.object;
  throw new KubeApiError(`watch ${path}: ${code} ${reason}: ${message}`, { status: code, reason });
}

/** The TLS settings an agent is built with; new ones mean a new agent. */
type TlsMaterial = Pick<HttpsRequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'>;

/** Equal PEM material (a string, a Buffer, or a list of either, as the kubeconfig gives it). */
function samePem(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => samePem(item, b[i]));
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return a === b;
}

function sameMaterial(a: TlsMaterial, b: TlsMaterial): boolean {
  return samePem(a.ca, b.ca) && samePem(a.cert, b.cert) && samePem(a.key, b.key) && a.rejectUnauthorized === b.rejectUnauthorized && a.servername === b.servername;
}

/**
 * The cluster's `proxy-url` as Node's agents take a proxy (a CONNECT tunnel for https), or nothing.
 * kubectl also speaks SOCKS5; Node does not, and connecting directly instead would go around a proxy
 * the cluster may only be reachable through, so any other scheme is refused.
 */
function proxyOf(proxyUrl: string | undefined): { proxyEnv?: { HTTP_PROXY: string; HTTPS_PROXY: string } } {
  if (!proxyUrl) return {};
  const scheme = URL.canParse(proxyUrl) ? new URL(proxyUrl).protocol : '';
  if (scheme !== 'http:' && scheme !== 'https:') throw new Error(`proxy-url ${proxyUrl}: only http:// and https:// proxies are supported`);
  return { proxyEnv: { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl } };
}

/**
 * The keep-alive agent for the TLS material of each request. When the material changes (a client
 * certificate file rewritten, an exec plugin's new credential) a new agent takes over, and the old one
 * is retired: its idle connections close, and those still busy (a long watch) close when they are done.
 */
function agentPool(secure: boolean, proxyUrl: string | undefined): { for(opts: TlsMaterial): Http.Agent } {
  const proxy = proxyOf(proxyUrl);
  if (!secure) {
    const plain = new HttpAgent({ keepAlive: true, ...proxy });
    return { for: () => plain };
  }
  let current: { material: TlsMaterial; agent: HttpsAgent } | undefined;
  const retire = (agent: HttpsAgent): void => {
    agent.keepSocketAlive = () => false;
    for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  };
  return {
    for(opts) {
      const { ca, cert, key, rejectUnauthorized, servername } = opts;
      const material = { ca, cert, key, rejectUnauthorized, servername };
      if (current && sameMaterial(current.material, material)) return current.agent;
      if (current) retire(current.agent);
      const agent = new HttpsAgent({
        keepAlive: true, ca, cert, key, ...proxy, ...(rejectUnauthorized === undefined ? {} : { rejectUnauthorized }), ...(servername ? { servername } : {}),
      });
      current = { material, agent };
      return agent;
    },
  };
}

/** Creates a client for the kubeconfig's current context. */
export function createRestClient(options: RestClientOptions): RestClient {
  const { kubeConfig, throttle, observe } = options;
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster?.server) throw new Error(cluster ? 'the kubeconfig\'s current cluster has no server' : 'the kubeconfig has no current cluster');
  const server = cluster.server.replace(/\/+$/, '');
  const url = new URL(server);
  const secure = url.protocol === 'https:';
  const agents = agentPool(secure, cluster.proxyUrl);
  const userAgent = options.userAgent ?? defaultUserAgent();
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const readBody = (res: IncomingMessage, what: string): Promise<string> => readBounded(bodyOf(res, what), maxBytes, what);

  // Credentials are applied per request (tokens and client certificates may rotate); the TLS material
  // goes into a keep-alive agent so connections are reused instead of handshaking per call.
  // Returns the options as sent and as the credentials were applied to (to name them if refused).
  const optionsFor = async (method: string, path: string, headers: Record<string, string>): Promise<[RequestOptions, HttpsRequestOptions]> => {
    const opts: HttpsRequestOptions = { headers: { ...headers } };
    await kubeConfig.applyToHTTPSOptions(opts);
    const agent = agents.for(opts);
    return [{ method, host: url.hostname, port: url.port, path: `${url.pathname.replace(/\/$/, '')}${path}`, headers: opts.headers, agent }, opts];
  };

  const exchange = (req: RestRequest, opts: RequestOptions, body: Buffer | undefined): Promise<IncomingMessage> => new Promise((resolve, reject) => {
    // Given up after its slot (while credentials were fetched, say): nothing may be sent then.
    if (req.signal?.aborted) {
      reject(new Error(`${req.method} ${req.path} given up before it was sent`, { cause: req.signal.reason }));
      return;
    }
    const outgoing = (secure ? httpsRequest : httpRequest)({ ...opts, ...(req.signal ? { signal: req.signal } : {}) }, resolve);
    outgoing.once('error', (cause) => reject(new Error(`${req.method} ${req.path} failed: ${cause.message}`, { cause })));
    outgoing.end(body);
  });

  const send = async (req: RestRequest, headers: Record<string, string>): Promise<IncomingMessage> => {
    try {
      await throttle?.(req.tenant, req.signal);
    } catch (cause) {
      throw new Error(`${req.method} ${req.path} given up while waiting for the client rate limit: ${(cause as Error).message}`, { cause });
    }
    const body = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    const allHeaders = { Accept: req.accept ?? 'application/json', 'User-Agent': userAgent, 'Accept-Encoding': 'gzip', ...headers, ...(body ? { 'Content-Type': req.contentType ?? 'application/json', 'Content-Length': String(body.length) } : {}) };
    const path = `${req.path}${queryString(req.query)}`;
    return resendOnceIfRefused(async () => {
      const [opts, applied] = await optionsFor(req.method, path, allHeaders);
      return { response: await exchange(req, opts, body), applied };
    }, kubeConfig.credentialsRefused?.bind(kubeConfig));
  };

  const request = async <T>(req: RestRequest): Promise<T> => {
    // Every call is bounded: a request the server never answers must not hold a worker forever.
    const bounded = boundedSignal([req.signal, req.stop]);
    let res: IncomingMessage;
    let text: string;
    try {
      res = await send({ ...req, signal: bounded.signal }, {});
      text = await readBody(res, `${req.method} ${req.path}`);
    } finally {
      bounded.release();
    }
    const status = res.statusCode ?? 0;
    observe?.({ method: req.method, path: req.path, status, contentEncoding: res.headers['content-encoding'] });
    if (status < 200 || status >= 300) throw apiError(status, text, res.headers['retry-after']);
    return (text ? JSON.parse(text) : undefined) as T;
  };

  async function* watch(path: string, query: Query, signal: AbortSignal, onEstablished?: () => void): AsyncIterable<WatchEvent> {
    const res = await send({ method: 'GET', path, query: { ...query, watch: true }, signal }, {});
    const status = res.statusCode ?? 0;
    observe?.({ method: 'WATCH', path, status });
    if (status !== 200) throw apiError(status, await readBody(res, `watch ${path}`), undefined);
    onEstablished?.();
    const body = bodyOf(res, `watch ${path}`);
    try {
      for await (const line of boundedLines(body, maxBytes, `watch ${path}`)) {
        const event = parseWatchLine(path, line);
        if (event) yield event;
      }
    } finally {
      // A reader that stopped early leaves the stream open: close it. Its abort may still raise an
      // error on the response, which nobody reads any more and which must not end the process.
      for (const stream of [body, res]) stream.on('error', () => undefined).destroy();
    }
  }

  return { server, request, watch };
}
