/**
 * The one interface every kind of hook implements: the HTTP webhook (`webhook-runner.ts`) and the
 * inline JSONata expression. The request and response JSON are identical for both, so the reconcilers
 * never know which kind they are calling.
 */

/** The hooks a controller may declare; also the `<hook>` in Metacontroller's `metacontroller_<hook>_*` metrics. */
export type HookKind = 'sync' | 'finalize' | 'customize';

/** Calls one hook of one controller. */
export interface HookRunner {
  /**
   * Sends `request` (the hook request object, already built) and returns the parsed response JSON.
   * The shape of the response is not checked here; decoding (strict or loose) happens in the caller.
   *
   * Rejects with a `HookError` when the call fails, or a `HookRetryAfterError` when the hook asks to be
   * called later (see `hook-error.ts` for how the engine maps each). Aborting `signal` ends the call at
   * once with a `HookError` whose `cause` is the signal's reason.
   */
  call(request: unknown, signal: AbortSignal): Promise<unknown>;
}
