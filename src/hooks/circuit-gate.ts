/**
 * Where a webhook call meets its endpoint's circuit breaker: before anything is sent (fail fast with a
 * {@link HookCircuitOpenError}) and when the call is over (what it showed of the endpoint).
 */
import { type Admitted, type CallVerdict, type CircuitBreaker } from './circuit-breaker.ts';
import { HookCircuitOpenError } from './hook-error.ts';
import { isAnswered, NO_RESPONSE } from './hook-observer.ts';

/** A breaker and the name of the endpoint it guards (a URL without credentials, query or fragment). */
export interface CircuitGuard {
  breaker: CircuitBreaker;
  endpoint: string;
}

/**
 * The admission of a call to `guard`'s endpoint (`undefined` without a guard). Throws a
 * {@link HookCircuitOpenError} starting with `label` when the breaker is open.
 */
export function admitCall(guard: CircuitGuard | undefined, label: string): Admitted | undefined {
  if (!guard) return undefined;
  const admission = guard.breaker.admit();
  if (admission.admitted) return admission;
  const next = admission.probing ? 'after the probe call in flight' : `at ${new Date(admission.retryAt).toISOString()}`;
  throw new HookCircuitOpenError(
    `${label}: circuit open after ${admission.failures} failures; next try ${next}`, guard.endpoint, admission.retryAt,
  );
}

/**
 * Answers that say the endpoint itself is down rather than that one request failed: a proxy or load
 * balancer found nothing behind it (502, 504), or the server says it is unavailable (503). A 500 is
 * not among them: it is what a hook server answers when its handler throws on one parent's input
 * (the SDK does), and one such parent retrying must not stop the calls for every other parent.
 */
const DOWN_STATUSES = new Set(['502', '503', '504']);

/**
 * What a call's outcome code (`hook-observer.ts`; `undefined` when nothing was sent) says of the
 * endpoint: no answer (refused, reset, TLS), a timeout, or a 502, 503 or 504 find it down; any other
 * answer (500, 4xx and 429 included: a server that answers is up) finds it up; loom's own abort, or a
 * call never sent, tells nothing.
 */
export function verdictOf(code: string | undefined): CallVerdict {
  if (code === undefined || code === NO_RESPONSE.aborted) return 'unknown';
  if (isAnswered(code)) return DOWN_STATUSES.has(code) ? 'down' : 'up';
  return 'down';
}
