/**
 * An error answer from the Kubernetes API, with the fields callers branch on: the HTTP status and the
 * `Status.reason` (`NotFound`, `Conflict`, `AlreadyExists`, `Gone`, …).
 */

/** Thrown for every non-2xx answer of the API server. */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  readonly status: number;
  readonly reason: string;
  /** Seconds from `Retry-After` or `details.retryAfterSeconds`, when the server sent one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, init: { status: number; reason: string; retryAfterSeconds?: number | undefined; cause?: unknown }) {
    super(message, { cause: init.cause });
    this.status = init.status;
    this.reason = init.reason;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** True for a 403: loom's credentials may not do this (RBAC); the message names user, verb, resource and scope. */
export function isForbidden(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 403;
}

/** True for a 404. Used where absence is an expected outcome (delete of a gone object). */
export function isNotFound(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 404;
}

/** True for a 409 Conflict (stale resourceVersion), not AlreadyExists (also 409). */
export function isConflict(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 409 && err.reason === 'Conflict';
}

/** True for a 409 AlreadyExists. */
export function isAlreadyExists(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 409 && err.reason === 'AlreadyExists';
}

/** True for a 422 Invalid: the API server refused the object's content (a failed validation, an immutable field). */
export function isInvalid(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 422;
}

/** True for 410 Gone: a watch's resourceVersion is too old and the cache must relist. */
export function isGone(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 410;
}
