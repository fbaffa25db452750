/**
 * The contract between the engine and a controller: one method, given a key, that brings the world in
 * line with the current state of that key's object and says at most "come back after this long".
 * Level-based: the reconciler reads current state itself (from the store), never an event.
 *
 * How it ends tells the engine what to do with the key (errors are in `errors.ts`):
 * - resolves — success: backoff is reset, and the key is queued again after `requeueAfterMs` if set;
 * - throws `TerminalError` — not retried; reported;
 * - throws `RetryAfterError` — retried after its delay, not counted as a failure;
 * - throws anything else — retried with rate-limited backoff; reported.
 */

/** What a successful reconcile asks of the engine. */
export interface ReconcileResult {
  /**
   * Queue the key again after this many milliseconds even if nothing changes (Metacontroller's
   * `resyncAfterSeconds`). Absent, zero or negative: only a change queues it again.
   */
  readonly requeueAfterMs?: number | undefined;
}

/** Brings one key's object to its desired state. */
export interface Reconciler<K = string> {
  /**
   * Reconciles `key`. The engine never runs two reconciles of the same key at once. `signal` aborts
   * only on a hard stop; a graceful shutdown lets the reconcile finish.
   */
  reconcile(key: K, signal: AbortSignal): Promise<ReconcileResult>;
}
