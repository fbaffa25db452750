/**
 * What loom says about the events it did not write: each is counted (`loom_events_dropped_total`), and
 * a log line says how many, by why, at most once an interval — a storm drops thousands, and a line for
 * each would be a storm of its own.
 */
import type { Logger } from 'pino';
import type { Clock } from '../engine/index.ts';
import type { EventDropReason } from '../kube/index.ts';

/** Settings of {@link eventDropReport}. */
export interface EventDropReportOptions {
  clock: Pick<Clock, 'now'>;
  logger: Logger;
  /** Counts one drop (the metric). */
  count(reason: EventDropReason): void;
  /** Least time between two log lines. */
  intervalMs: number;
}

/**
 * Returns the recorder's `dropped` callback. The first drop is logged at once; later ones are tallied
 * and logged with the next drop after the interval. Drops for lack of a place or a slot are logged as a
 * warning (Events were lost); the per-object spam filter's, which is Metacontroller's usual behaviour,
 * at debug level.
 */
export function eventDropReport(options: EventDropReportOptions): (reason: EventDropReason) => void {
  const { clock, logger, intervalMs } = options;
  let tally: Partial<Record<EventDropReason, number>> = {};
  let loggedAt = -Infinity;
  return (reason) => {
    options.count(reason);
    tally[reason] = (tally[reason] ?? 0) + 1;
    const now = clock.now();
    if (now - loggedAt < intervalMs) return;
    loggedAt = now;
    const total = Object.values(tally).reduce((sum, n) => sum + n, 0);
    const lost = (tally.queue_full ?? 0) + (tally.expired ?? 0) > 0;
    const dropped = tally;
    tally = {};
    logger[lost ? 'warn' : 'debug']({ dropped }, `${total} events dropped since the last report, not written (see loom_events_dropped_total)`);
  };
}
