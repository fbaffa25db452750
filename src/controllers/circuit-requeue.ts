/**
 * Parents skipped by an open circuit breaker are queued again, none dropped (docs/hook-protocol.md,
 * "Circuit breaker"): a sync that failed fast with a `HookCircuitOpenError` leaves its key here, under
 * the breaker's endpoint; when that breaker's open period ends (so one of them carries the probe) and
 * when it closes, every key it skipped is queued — or, if more were skipped than are kept, every key
 * of the controller. A key skipped by a breaker that has meanwhile closed is queued at once.
 */
import { createSkippedKeys, type Clock } from '../engine/index.ts';
import { HookCircuitOpenError, type CircuitTransition } from '../hooks/index.ts';
import type { HookCircuits } from './hook-circuits.ts';

/** Skipped keys kept per controller, over all its breakers; past this, a closing breaker queues every key. */
export const MAX_SKIPPED_KEYS = 10_000;

/** What the requeue works on: one controller's queue and keys. */
export interface CircuitRequeueInput<K> {
  circuits: HookCircuits;
  /** Queues a key. */
  enqueue(key: K): void;
  /** Every key of the controller. */
  keys(): Iterable<K>;
  /** Names a key (keys with one name are one). */
  keyName(key: K): string;
  clock: Pick<Clock, 'now' | 'sleep'>;
  /** The controller's stop: ends the waits for open periods. */
  signal: AbortSignal;
  /** Defaults to {@link MAX_SKIPPED_KEYS}. */
  maxKeys?: number | undefined;
}

/** The requeue of one controller. */
export interface CircuitRequeue<K> {
  /** Looks at how a sync of `key` failed; a fast failure at an open breaker is kept for later. */
  failed(key: K, error: unknown): void;
  /** Stops listening to the breakers. */
  stop(): void;
}

/** The {@link HookCircuitOpenError} in `error`'s cause chain (wrapped with the parent's key, say), if any. */
function circuitOpenIn(error: unknown): HookCircuitOpenError | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    if (current instanceof HookCircuitOpenError) return current;
    seen.add(current);
  }
  return undefined;
}

/** Starts listening to `input.circuits`. */
export function startCircuitRequeue<K>(input: CircuitRequeueInput<K>): CircuitRequeue<K> {
  const skipped = createSkippedKeys<K>(input.maxKeys ?? MAX_SKIPPED_KEYS, (key) => input.keyName(key));
  // Endpoints whose breaker is open or half-open now; any other is closed.
  const notClosed = new Set<string>();
  const release = (endpoint: string): void => {
    const taken = skipped.take(endpoint);
    for (const key of taken.all ? input.keys() : taken.keys) input.enqueue(key);
  };
  const wakeAt = (endpoint: string, retryAt: number): void => {
    void input.clock.sleep(Math.max(0, retryAt - input.clock.now()), input.signal).then(() => release(endpoint), () => undefined);
  };
  const unsubscribe = input.circuits.subscribe((endpoint: string, transition: CircuitTransition) => {
    if (transition.to === 'closed') {
      notClosed.delete(endpoint);
      release(endpoint);
      return;
    }
    notClosed.add(endpoint);
    if (transition.to === 'open' && transition.retryAt !== undefined) wakeAt(endpoint, transition.retryAt);
  });
  return {
    failed(key, error) {
      const open = circuitOpenIn(error);
      if (!open) return;
      if (notClosed.has(open.endpoint)) skipped.add(open.endpoint, key);
      else input.enqueue(key);
    },
    stop: unsubscribe,
  };
}
