/**
 * The errors a reconcile throws to tell the engine what to do with its key. The worker loop maps them
 * to queue actions in one switch (`run-workers.ts`):
 *
 * - {@link TerminalError}: retrying cannot help (an invalid spec, a hook that rejects the input for
 *   good). The key's backoff is reset and it is not re-queued; the caller reports it. A later change to
 *   the object queues the key again, so "terminal" means "until something changes", not "forever".
 * - {@link RetryAfterError}: the other side asked us to come back later (HTTP 429 `Retry-After`). The
 *   key is re-queued after exactly that delay, and it does not count as a failure: the backoff is
 *   neither advanced nor reset.
 * - Anything else is a failure: the key is re-queued through the rate limiter (per-key exponential
 *   backoff combined with the overall token bucket) and the caller reports it.
 *
 * Either class is also recognised when wrapped as the `cause` of another error (as Go's `errors.As`
 * would), so a layer may add context — `new HookError('sync hook for default/web failed', { cause })` —
 * without changing how the engine treats the key.
 */

/** Do not retry this key; report the error. */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
}

/** How long to wait before retrying, and why. */
export interface RetryAfterOptions extends ErrorOptions {
  /** Milliseconds until the key may be tried again; negative or NaN means "now". */
  retryAfterMs: number;
}

/** Retry this key after {@link RetryAfterError.retryAfterMs}, without counting a failure. */
export class RetryAfterError extends Error {
  override readonly name = 'RetryAfterError';
  /** Milliseconds until the key may be tried again, never negative. */
  readonly retryAfterMs: number;

  constructor(message: string, options: RetryAfterOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs > 0 ? options.retryAfterMs : 0;
  }
}

/** Deep enough for any honest chain of wrappers; stops a cyclic `cause` chain. */
const MAX_CAUSE_DEPTH = 32;

/**
 * The first {@link TerminalError} or {@link RetryAfterError} in `error`'s `cause` chain (starting with
 * `error` itself), or `undefined` when there is none: the error is then an ordinary failure.
 */
export function engineErrorOf(error: unknown): TerminalError | RetryAfterError | undefined {
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    if (current instanceof TerminalError || current instanceof RetryAfterError) return current;
    current = current.cause;
  }
  return undefined;
}
