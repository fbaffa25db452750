/**
 * A circuit breaker for one webhook endpoint (docs/hook-protocol.md, "Circuit breaker"): after
 * `failures` calls in a row that found the endpoint down (no answer, a timeout, 502/503/504), it opens for
 * `openMs`; the first call after that is the one probe (half-open) while every other call fails fast;
 * the probe's success closes it, its failure opens it again for twice as long (up to `maxOpenMs`), and a
 * probe that told nothing opens it again for the same period.
 * Pure: time comes from the injected clock, and what happens on a transition is the caller's business.
 */

/** When the breaker opens and for how long. */
export interface CircuitPolicy {
  /** Calls in a row that found the endpoint down before it opens; `0` turns the breaker off. */
  failures: number;
  /** How long it stays open the first time, in ms. */
  openMs: number;
  /** The longest it stays open after failed probes, in ms (each failed probe doubles the period up to this). */
  maxOpenMs: number;
}

/** loom's defaults: `--hook-circuit-failures=5`, `--hook-circuit-open-period=30s`, at most 10 times that. */
export const DEFAULT_CIRCUIT_POLICY: CircuitPolicy = { failures: 5, openMs: 30_000, maxOpenMs: 300_000 };

/** `closed`: calls go through; `open`: they fail fast; `half-open`: one probe call is in flight. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * What one call showed of the endpoint: `down` (no answer, timeout, 502/503/504), `up` (any other answer), or
 * `unknown` (loom gave up on it, or it was never sent: the caller's abort, a credential it could not read).
 */
export type CallVerdict = 'down' | 'up' | 'unknown';

/** A call that may go out; settle it with its verdict. */
export interface Admitted {
  admitted: true;
  /** Whether this call is the half-open probe. */
  probe: boolean;
}

/** A call that must fail fast, and why. */
export interface Refused {
  admitted: false;
  /** The failures in a row that opened the breaker. */
  failures: number;
  /** When a probe may go (wall time, ms). */
  retryAt: number;
  /** A probe is in flight now; the next call after it depends on its verdict. */
  probing: boolean;
}

/** A change of state. */
export interface CircuitTransition {
  from: CircuitState;
  to: CircuitState;
  failures: number;
  /** When opened: when the probe may go. */
  retryAt?: number;
}

/** One endpoint's breaker. */
export interface CircuitBreaker {
  /** Whether a call may go now; an admitted call must be {@link settle}d exactly once. */
  admit(): Admitted | Refused;
  settle(call: Admitted, verdict: CallVerdict): void;
  state(): CircuitState;
}

/** What the breaker needs besides its policy. */
export interface CircuitBreakerOptions {
  policy: CircuitPolicy;
  clock: { now(): number };
  /** Told of every change of state, after it happened. Must not throw. */
  onTransition?: ((transition: CircuitTransition) => void) | undefined;
}

/** A closed breaker; with `policy.failures` 0 it admits every call and never opens. */
export function createCircuitBreaker({ policy, clock, onTransition }: CircuitBreakerOptions): CircuitBreaker {
  let state: CircuitState = 'closed';
  let failures = 0;
  let periodMs = policy.openMs;
  let retryAt = 0;
  const move = (to: CircuitState): void => {
    const from = state;
    state = to;
    onTransition?.({ from, to, failures, ...(to === 'open' ? { retryAt } : {}) });
  };
  const open = (): void => {
    retryAt = clock.now() + periodMs;
    move('open');
  };
  const settleProbe = (verdict: CallVerdict): void => {
    if (verdict === 'up') {
      failures = 0;
      periodMs = policy.openMs;
      move('closed');
    } else if (verdict === 'down') {
      failures++;
      periodMs = Math.min(periodMs * 2, policy.maxOpenMs);
      open();
    } else {
      // The probe told nothing (aborted, never sent): another waits out the same period. Probing again at
      // once would turn a failure that repeats without a call (a credential it cannot read) into a hot loop.
      open();
    }
  };
  return {
    admit() {
      if (state === 'closed' || policy.failures <= 0) return { admitted: true, probe: false };
      if (state === 'open' && clock.now() >= retryAt) {
        move('half-open');
        return { admitted: true, probe: true };
      }
      return { admitted: false, failures, retryAt, probing: state === 'half-open' };
    },
    settle(call, verdict) {
      if (call.probe) return settleProbe(verdict);
      // A call let through while closed that ends after the breaker opened says nothing new.
      if (state !== 'closed' || policy.failures <= 0) return;
      if (verdict === 'up') failures = 0;
      else if (verdict === 'down' && ++failures >= policy.failures) open();
    },
    state: () => state,
  };
}
