/**
 * How a hook call fails. Two classes, because they lead to different queue actions
 * (docs/architecture.md, "Errors and retries"). `hooks/` may import only `api/`, so neither is the
 * engine's own class; the reconciler that calls the hook (in `controllers/`) maps them onto
 * `engine/errors.ts`:
 *
 * - {@link HookError} → an ordinary failure, thrown on (wrapped with the parent's key): a Warning
 *   `SyncError` event on the parent and a rate-limited requeue, as Metacontroller does for a hook error,
 *   timeout or non-200 status.
 * - {@link HookRetryAfterError} → `new RetryAfterError(message, { retryAfterMs, cause })`: requeue after
 *   `retryAfterMs`, no event, not counted as a failure (Metacontroller's `AddAfter(Retry-After)` for 429).
 *   The engine finds `RetryAfterError` only by class, so a reconciler that forgets this mapping turns
 *   every 429 into a failure.
 */

/**
 * A hook call failed: the hook could not be reached, timed out, was aborted, answered with a status
 * other than 200, or answered 200 with a body that is not JSON. The message says which hook, where and
 * what went wrong; `cause` holds the underlying error when there is one (network error, abort reason,
 * `SyntaxError`). Callers add the parent's key when they wrap it.
 */
export class HookError extends Error {
  // Typed `string`, not the literal, so the JSONata errors (`jsonata-errors.ts`) can extend it.
  override readonly name: string = 'HookError';
}

/**
 * The hook asked to be called again later (HTTP 429). Deliberately not a {@link HookError}: it is back
 * pressure, not a failure, and a `catch` that tests for `HookError` must not report it as one.
 */
export class HookRetryAfterError extends Error {
  override readonly name = 'HookRetryAfterError';
  /** How long to wait before calling the hook again; `0` when the hook gave no usable `Retry-After`. */
  readonly retryAfterMs: number;

  constructor(message: string, retryAfterMs: number, options?: ErrorOptions) {
    super(message, options);
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * The call was not sent: the endpoint's circuit breaker is open (`circuit-breaker.ts`). A
 * {@link HookError}, so the sync fails as for any hook error (event, backoff, nothing written); the
 * controller also keeps the parent's key, to queue it again when the breaker lets calls through.
 */
export class HookCircuitOpenError extends HookError {
  override readonly name: string = 'HookCircuitOpenError';
  /** The breaker's endpoint, as the runner was given it: the key the controller keeps skipped parents under. */
  readonly endpoint: string;
  /** When a probe may go (wall time, ms). */
  readonly retryAt: number;

  constructor(message: string, endpoint: string, retryAt: number) {
    super(message);
    this.endpoint = endpoint;
    this.retryAt = retryAt;
  }
}
