/**
 * Keeping a Lease, as leader election and shard membership both do: renew it every retry period, and
 * give it up for lost at the renew deadline — the deadline counted from the last renewal that
 * succeeded, and met exactly: a renewal still waiting for its answer then is abandoned (its request
 * aborted) rather than waited for, and a replica whose renewals fail stops at the deadline, not at the
 * next retry after it. Past the deadline others may soon take over (the Lease expires a little later),
 * so whoever keeps the Lease must stop writing by then.
 */
import type { Clock } from '../engine/index.ts';

/** How to keep a Lease. */
export interface LeaseRenewalOptions {
  clock: Clock;
  retryPeriodMs: number;
  renewDeadlineMs: number;
  /** One renewal; rejects when it fails. `signal` aborts when it is abandoned (the deadline, or the stop). */
  renew(signal: AbortSignal): Promise<void>;
  /** Told of each renewal that succeeded. */
  onRenewed?: (() => void) | undefined;
  /** Told of each renewal that failed (not of one abandoned at the deadline). */
  onFailed?: ((err: unknown) => void) | undefined;
}

/** How keeping the Lease ended: stopped by the caller, or lost at the renew deadline (`cause`: the last failure, if any). */
export type LeaseRenewalEnd = { outcome: 'stopped' } | { outcome: 'lost'; cause: unknown };

/** One renewal's outcome. */
type Attempt = { renewed: true } | { failed: unknown } | 'deadline' | 'stopped';

/**
 * Renews at once, then every retry period, until `stop` aborts (`stopped`) or no renewal has succeeded
 * for the renew deadline (`lost`), counted from when the last good one was sent (its `renewTime` is
 * stamped then, and others judge by it).
 */
export async function keepRenewing(options: LeaseRenewalOptions, stop: AbortSignal): Promise<LeaseRenewalEnd> {
  const { clock, renewDeadlineMs } = options;
  let lastRenewal = clock.now();
  let lastFailure: unknown;
  while (!stop.aborted) {
    const deadlineAt = lastRenewal + renewDeadlineMs;
    if (clock.now() >= deadlineAt) return { outcome: 'lost', cause: lastFailure };
    const sentAt = clock.now();
    const attempt = await renewBefore(options, deadlineAt, stop);
    if (attempt === 'deadline') return { outcome: 'lost', cause: lastFailure };
    if (attempt === 'stopped' || stop.aborted) break;
    if ('renewed' in attempt) {
      lastRenewal = sentAt;
      options.onRenewed?.();
    } else {
      lastFailure = attempt.failed;
      options.onFailed?.(attempt.failed);
    }
    // Wakes at the deadline at the latest, so failing renewals are given up for lost exactly then.
    const untilDeadline = Math.max(0, lastRenewal + renewDeadlineMs - clock.now());
    await clock.sleep(Math.min(options.retryPeriodMs, untilDeadline), stop).catch(() => undefined);
  }
  return { outcome: 'stopped' };
}

/** One renewal raced against `deadlineAt` and `stop`; the loser is abandoned. */
async function renewBefore(options: LeaseRenewalOptions, deadlineAt: number, stop: AbortSignal): Promise<Attempt> {
  const { clock } = options;
  const abandon = new AbortController();
  const either = AbortSignal.any([stop, abandon.signal]);
  const deadline = clock.sleep(Math.max(0, deadlineAt - clock.now()), either).then(() => 'deadline' as const, () => 'stopped' as const);
  try {
    return await Promise.race([options.renew(either).then((): Attempt => ({ renewed: true }), (failed: unknown): Attempt => ({ failed })), deadline]);
  } finally {
    abandon.abort();
  }
}
