/**
 * One HTTP(S) POST of a JSON body with a bounded response, on `node:http` rather than `fetch` because
 * existing hook servers are picky about the wire (docs/hook-protocol.md, "Sync and finalize (webhooks)";
 * docs/architecture.md, "Hooks: webhooks and JSONata"): the request carries
 * `Content-Type: application/json` exactly, with no charset parameter, and a `Content-Length`, never a
 * chunked body. A response without `Content-Length` that ends when the server closes the connection is
 * read to the end like any other.
 */
import type * as Http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';

// Required, not imported: importing `node:http` as an ES module reads its lazy WebSocket getters, which
// load Node's bundled undici (~14 MiB resident) that loom never uses.
const { request: httpRequest } = createRequire(import.meta.url)('node:http') as typeof Http;

/** A response, read completely. */
export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What to send and the bounds to send it within. */
export interface HttpPostOptions {
  url: URL;
  /** The encoded JSON; sent as is, with its byte length as `Content-Length`. */
  body: Buffer;
  /** Aborting it destroys the connection and rejects with the signal's reason. */
  signal: AbortSignal;
  /** A response body larger than this is an error; the connection is dropped as soon as it is known. */
  maxResponseBytes: number;
  /**
   * More request headers (`Authorization`, `If-None-Match`). They cannot replace `Content-Type` or
   * `Content-Length`, whatever their case: those two are the wire contract.
   */
  headers?: Readonly<Record<string, string>> | undefined;
  /** For an `https:` URL: the agent holding a custom CA and client certificate; default agent otherwise. */
  agent?: HttpsAgent | undefined;
  /** Told the status as soon as the status line is read, before the body: a body that fails still came from a server that answered. */
  onStatus?: ((status: number) => void) | undefined;
}

const FRAMING_HEADERS = new Set(['content-type', 'content-length', 'transfer-encoding']);

function requestHeaders(extra: Readonly<Record<string, string>> | undefined, length: number): Record<string, string | number> {
  const headers: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(extra ?? {})) {
    if (!FRAMING_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  return { ...headers, 'Content-Type': 'application/json', 'Content-Length': length };
}

function tooLarge(limit: number): Error {
  return new Error(`response body exceeds the limit of ${limit} bytes`);
}

// Node reports a body cut short as a bare "aborted" (ECONNRESET); say what happened instead.
function truncated(cause?: unknown): Error {
  return new Error('connection closed before the response was complete', { cause });
}

function readBody(res: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (Number(res.headers['content-length'] ?? 0) > limit) {
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) reject(tooLarge(limit));
      else chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', (err) => reject(truncated(err)));
    // A no-op after 'end'; otherwise the body was cut short, whether or not an 'error' came first.
    res.on('close', () => reject(truncated()));
  });
}

/**
 * POSTs `body` to `url` and resolves with the whole response, whatever its status. Rejects on
 * connection errors (TLS ones included), an oversize or truncated response, and abort. Uses `agent`
 * for https when given, else the default agent (keep-alive).
 */
export async function httpPost({ url, body, signal, maxResponseBytes, headers, agent, onStatus }: HttpPostOptions): Promise<HttpResponse> {
  signal.throwIfAborted();
  const { promise, resolve, reject } = Promise.withResolvers<HttpResponse>();
  const https = url.protocol === 'https:';
  const options = { method: 'POST', headers: requestHeaders(headers, body.length) };
  const req = https ? httpsRequest(url, agent ? { ...options, agent } : options) : httpRequest(url, options);
  // Settling first makes the errors that destroy() triggers no-ops: the first failure is the one reported.
  const fail = (err: unknown): void => {
    reject(err);
    req.destroy();
  };
  const onAbort = (): void => fail(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  req.on('error', fail);
  req.on('response', (res) => {
    onStatus?.(res.statusCode ?? 0);
    readBody(res, maxResponseBytes).then(
      (data) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }),
      fail,
    );
  });
  req.end(body);
  try {
    return await promise;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
