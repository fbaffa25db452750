/**
 * What a hook runner reports about each request, so the metrics layer can emit Metacontroller's hook
 * metrics without `hooks/` knowing how metrics are kept:
 *
 * - `metacontroller_<hook>_in_flight_requests` (gauge): +1 on `requestStarted`, -1 on `requestFinished`.
 * - `metacontroller_<hook>_requests_total{code,method}` (counter) and
 *   `metacontroller_<hook>_request_duration_histogram_seconds{method}` (histogram) from `requestFinished`.
 *   `method` is always `post` (promhttp's lower-case label value); the runner only ever POSTs.
 */

/**
 * `code` when no answer was read: the call ran out of time (`timeout`), loom gave up on it (`aborted`,
 * at shutdown), or it failed otherwise (`error`: connection refused or reset, TLS, an oversize body).
 * Metacontroller's promhttp transport counts and times only requests that got a response, so an adapter
 * that wants identical series skips the counter and histogram for these (but still decrements the
 * in-flight gauge).
 */
export const NO_RESPONSE = { timeout: 'timeout', aborted: 'aborted', error: 'error' } as const;

/** Whether `code` is an HTTP status, that is, the hook answered (even with an error). */
export function isAnswered(code: string): boolean {
  return /^\d{3}$/.test(code);
}

/** The end of one request. */
export interface HookRequestOutcome {
  /** HTTP status as a decimal string (`"200"`, `"429"`), or one of {@link NO_RESPONSE}. */
  code: string;
  /** From just before the request is sent until the response body is read or the call fails. */
  durationSeconds: number;
}

/** Receives one `requestStarted` and then exactly one `requestFinished` per request. Must not throw. */
export interface HookObserver {
  requestStarted(): void;
  requestFinished(outcome: HookRequestOutcome): void;
}
