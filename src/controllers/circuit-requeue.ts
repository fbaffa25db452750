/**
 * Parents skipped by an open circuit breaker are queued again, none dropped (docs/hook-protocol.md,
 * "Circuit breaker"): a sync that failed fast with a `HookCircuitOpenError` leaves its key here, under
 * the breaker's endpoint. When the breaker's open period ends, one skipped key is queued to carry the
 * probe (its sync makes the call the breaker admits as the probe); if that sync ends without the breaker
 * going half-open (the parent was deleted, or its sync needed no call), the next skipped key is queued,
 * and so on. When the breaker closes, every key it skipped is queued — or, if more were skipped than
 * are kept, every key of the controller. A key skipped by a breaker that has meanwhile closed is queued
 * at once. Queuing one carrier rather than every key keeps an open period from failing thousands of
 * syncs fast (each a Warning event and a backoff step) at its end.
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
  /**
   * Told of every sync's end: `error` when it failed. A fast failure at an open breaker is kept for
   * later; the end of a probe carrier's sync without a probe queues the next carrier. Returns `true`
   * when the failure is a fast failure of a key this breaker already skipped since it opened: it was
   * reported then, and reporting it again on every retry would say nothing new.
   */
  ended(key: K, error?: unknown): boolean;
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

/** The key queued to carry an open breaker's probe, and the ones to try after it. */
interface Carrier<K> {
  name: string;
  next: Iterator<K>;
}

/** Starts listening to `input.circuits`. */
export function startCircuitRequeue<K>(input: CircuitRequeueInput<K>): CircuitRequeue<K> {
  const skipped = createSkippedKeys<K>(input.maxKeys ?? MAX_SKIPPED_KEYS, (key) => input.keyName(key));
  // Endpoints whose breaker is open or half-open now, with the end of the open period; any other is closed.
  const notClosed = new Map<string, number | undefined>();
  const carriers = new Map<string, Carrier<K>>();
  const carryNext = (endpoint: string, next: Iterator<K>): void => {
    const step = next.next();
    if (step.done) carriers.delete(endpoint);
    else {
      carriers.set(endpoint, { name: input.keyName(step.value), next });
      input.enqueue(step.value);
    }
  };
  // The skipped keys first; past an overflow, every key of the controller.
  function* candidates(endpoint: string): Generator<K> {
    const kept = skipped.peek(endpoint);
    yield* kept.keys;
    if (kept.all) yield* input.keys();
  }
  const wakeAt = (endpoint: string, retryAt: number): void => {
    void input.clock.sleep(Math.max(0, retryAt - input.clock.now()), input.signal).then(() => {
      // A wake for an open period that has since ended (closed, or opened again) carries nothing.
      if (notClosed.get(endpoint) === retryAt) carryNext(endpoint, candidates(endpoint));
    }, () => undefined);
  };
  const unsubscribe = input.circuits.subscribe((endpoint: string, transition: CircuitTransition) => {
    carriers.delete(endpoint);
    if (transition.to === 'closed') {
      notClosed.delete(endpoint);
      const taken = skipped.take(endpoint);
      for (const key of taken.all ? input.keys() : taken.keys) input.enqueue(key);
      return;
    }
    notClosed.set(endpoint, transition.retryAt ?? notClosed.get(endpoint));
    if (transition.to === 'open' && transition.retryAt !== undefined) wakeAt(endpoint, transition.retryAt);
  });
  return {
    ended(key, error) {
      const name = input.keyName(key);
      for (const [endpoint, carrier] of carriers) if (carrier.name === name) carryNext(endpoint, carrier.next);
      const open = circuitOpenIn(error);
      if (!open) return false;
      if (notClosed.has(open.endpoint)) return !skipped.add(open.endpoint, key);
      input.enqueue(key);
      return false;
    },
    stop: unsubscribe,
  };
}
