/**
 * How long the hook server waits for a client to send its request. fastify sets no limit by default,
 * so without one a client that sends its headers, then a byte every few seconds, holds a socket (and
 * a parser) forever; a hook server often runs without a proxy in front, so it bounds this itself.
 */

/** The request timeouts of the hook server (`createHookServer`), in milliseconds; `0` turns one off. */
export interface ServerTimeouts {
  /**
   * Time a client has to send a whole request, headers and body, from its first byte. Past it the
   * server answers 408 and closes the connection. It ends when the request has arrived: a handler
   * may take longer (the caller's own hook timeout bounds that). Default 30 s.
   */
  requestTimeout?: number;
  /**
   * Time a client has to send the request line and headers; at most {@link requestTimeout}. Past it
   * the server answers 408 and closes the connection. Default 10 s.
   */
  headersTimeout?: number;
}

/** The default {@link ServerTimeouts.requestTimeout}: loom sends a hook request in one write. */
export const DEFAULT_REQUEST_TIMEOUT = 30_000;

/** The default {@link ServerTimeouts.headersTimeout}: headers are a few hundred bytes. */
export const DEFAULT_HEADERS_TIMEOUT = 10_000;

/** Node checks for expired requests every 30 s by default; often enough for limits this short. */
const MAX_CHECK_INTERVAL = 1_000;

/** The fastify server options that enforce {@link ServerTimeouts}. */
export interface FastifyTimeoutOptions {
  requestTimeout: number;
  http: { requestTimeout: number; headersTimeout: number; connectionsCheckingInterval: number };
}

function checked(name: keyof ServerTimeouts, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number of milliseconds, 0 or more; got ${value}`);
  return value;
}

/**
 * The fastify options for the given timeouts. `connectionTimeout` (socket inactivity) is left off on
 * purpose: it also runs while a handler computes its answer, so it would cut a slow hook off with
 * no response at all, and `keepAliveTimeout` keeps fastify's 72 s, longer than a client's idle pool.
 * @throws RangeError when a timeout is negative or not a whole number.
 */
export function fastifyTimeouts(timeouts: ServerTimeouts = {}): FastifyTimeoutOptions {
  const request = checked('requestTimeout', timeouts.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT);
  const wanted = checked('headersTimeout', timeouts.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT);
  // Node rejects headers allowed longer than the whole request; the request limit covers them then.
  const headers = request > 0 && (wanted === 0 || wanted > request) ? request : wanted;
  // Node only notices an expired request when it checks; checking at a quarter of the shortest
  // limit makes a limit fire within a quarter of its length, not up to 30 s late.
  const shortest = Math.min(...[request, headers].filter((ms) => ms > 0), MAX_CHECK_INTERVAL * 4);
  const connectionsCheckingInterval = Math.max(1, Math.floor(shortest / 4));
  return { requestTimeout: request, http: { requestTimeout: request, headersTimeout: headers, connectionsCheckingInterval } };
}
