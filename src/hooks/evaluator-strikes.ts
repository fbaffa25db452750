/**
 * A circuit breaker for expressions that end their evaluator process (a V8 abort, the heap limit, a
 * kill at the deadline). Each such end costs a new process, which takes about a tenth of a second of
 * CPU to start, and the process is shared: an expression that does it on every call would keep the
 * other expressions waiting for a process. So from the second end in a row, the expression rests for
 * that input's key (the parent): its calls for the key fail at once with the last reason for 1 s, then
 * 2 s, 4 s, … up to 30 s, without touching a process. One answer (or one ordinary failure) for the key
 * clears its record. Keyed by parent, because an expression usually ends its process for one parent's
 * data, and the other parents must not pay for it.
 */
import type { WireFailure } from './evaluator-protocol.ts';

/** The longest rest. */
export const MAX_REST_MS = 30_000;
/** The first rest, after two ends in a row. */
const FIRST_REST_MS = 1_000;

/** One expression's record. */
export interface Strikes {
  /** Process ends in a row. */
  count: number;
  /** Until when its calls fail at once (epoch ms). */
  restUntil: number;
  /** The reason of the last end, repeated by the calls that fail at once. */
  last: WireFailure | undefined;
}

/** A clean record. */
export function noStrikes(): Strikes {
  return { count: 0, restUntil: 0, last: undefined };
}

/** Records that the expression ended its process with `failure` at `now`. */
export function strike(strikes: Strikes, failure: WireFailure, now: number): void {
  strikes.count++;
  strikes.last = failure;
  if (strikes.count >= 2) strikes.restUntil = now + Math.min(MAX_REST_MS, FIRST_REST_MS * 2 ** (strikes.count - 2));
}

/** Records that the expression ran to an end of its own (an answer or an ordinary failure). */
export function clearStrikes(strikes: Strikes): void {
  strikes.count = 0;
  strikes.restUntil = 0;
  strikes.last = undefined;
}

/**
 * The failure a call gets at once while the expression rests at `now`, or `undefined` when it may run.
 * Its message is the same for the whole rest.
 */
export function resting(strikes: Strikes, now: number): WireFailure | undefined {
  if (strikes.last === undefined || now >= strikes.restUntil) return undefined;
  // Words only, no countdown or count: the message reaches a parent's Ready condition (a readyWhen's
  // verdict) and its status, and text that changed with the clock would be a status write per sync.
  return {
    ...strikes.last,
    message: `${strikes.last.message} (it has ended its evaluator process several times in a row, so it rests before it is evaluated again)`,
  };
}

/** The records of one expression, by key; a key leaves the book when it is cleared. */
export interface StrikeBook {
  strike(key: string, failure: WireFailure, now: number): void;
  clear(key: string): void;
  resting(key: string, now: number): WireFailure | undefined;
}

/** An empty book. */
export function strikeBook(): StrikeBook {
  const records = new Map<string, Strikes>();
  return {
    strike(key, failure, now) {
      let record = records.get(key);
      if (!record) records.set(key, (record = noStrikes()));
      strike(record, failure, now);
    },
    clear: (key) => void records.delete(key),
    resting(key, now) {
      const record = records.get(key);
      return record && resting(record, now);
    },
  };
}
