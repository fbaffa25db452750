/**
 * Polls a condition until it holds, a deadline passes, or a watched process dies first: waiting 90 s
 * for a server that crashed in the first second helps nobody.
 */
import type { Clock } from '../engine/clock.ts';

/** How to wait. */
export interface WaitOptions {
  clock: Clock;
  /** Describes the condition for the timeout message, e.g. `kube-apiserver /readyz`. */
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  /** Checked before each poll; a returned message ends the wait with that error. */
  giveUpIf?: () => string | undefined;
  /** Ends the wait with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/**
 * Resolves once `check` returns true. A `check` that throws counts as "not yet" (connection refused is
 * the normal state of a server that is still starting); its last error is kept as the timeout's cause.
 */
export async function waitUntil(check: () => Promise<boolean>, options: WaitOptions): Promise<void> {
  const { clock, what, timeoutMs, intervalMs = 100 } = options;
  const deadline = clock.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    options.signal?.throwIfAborted();
    const reason = options.giveUpIf?.();
    if (reason !== undefined) throw new Error(`gave up waiting for ${what}: ${reason}`, { cause: lastError });
    try {
      if (await check()) return;
    } catch (err) {
      lastError = err;
    }
    if (clock.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await clock.sleep(intervalMs, options.signal);
  }
}
