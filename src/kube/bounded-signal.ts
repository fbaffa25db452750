/**
 * The bound of each API request: it is given up after a minute, or when any signal it follows aborts,
 * and leaves nothing behind once it is done.
 */

/** Upper bound of one non-watch request, body included. */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * A signal that aborts after {@link REQUEST_TIMEOUT_MS}, or when one of `outers` does. `release` drops
 * its timer and its listeners on `outers` as soon as the request is done: `AbortSignal.timeout`
 * combined by `AbortSignal.any` would keep both, and what they hold, for the full minute (and on a
 * long-lived outer signal, for as long as it lives), which at hundreds of requests a second is tens of
 * thousands of live timers.
 */
export function boundedSignal(outers: readonly (AbortSignal | undefined)[]): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`, 'TimeoutError')), REQUEST_TIMEOUT_MS);
  const followed = outers.filter((outer) => outer !== undefined);
  const follow = (event: Event): void => controller.abort((event.target as AbortSignal).reason);
  const aborted = followed.find((outer) => outer.aborted);
  if (aborted) controller.abort(aborted.reason);
  else for (const outer of followed) outer.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    release() {
      clearTimeout(timer);
      for (const outer of followed) outer.removeEventListener('abort', follow);
    },
  };
}
