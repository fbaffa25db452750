/**
 * Go / Kubernetes duration strings (`metav1.Duration`, Go's `time.ParseDuration`): `"10s"`,
 * `"500ms"`, `"1m30s"`, `"1.5h"`, `"2us"`, `"-1s"`, `"0"`. Webhook timeouts in Metacontroller
 * manifests use this syntax, so loom must read exactly what Go reads.
 */

/** Thrown for a string Go's `time.ParseDuration` would reject; the message quotes the input. */
export class InvalidDurationError extends Error {
  override readonly name = 'InvalidDurationError';
}

const NS_PER_UNIT: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek small letter mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const UNITS = 'ns, us, µs, ms, s, m, h';
/** Go durations are int64 nanoseconds; larger values are an error there too. */
const MAX_NS = 2n ** 63n - 1n;
/** One segment: digits, optional fraction, then the unit (everything up to the next digit or dot). */
const SEGMENT = /(\d*)(?:\.(\d*))?([^\d.]*)/y;

interface Segment {
  ns: bigint;
  next: number;
}

interface SegmentText {
  whole: string;
  fraction: string;
  unit: string;
  length: number;
}

function matchSegment(body: string, start: number): SegmentText {
  SEGMENT.lastIndex = start;
  const match = SEGMENT.exec(body);
  if (match === null) return { whole: '', fraction: '', unit: '', length: 0 };
  return { whole: match[1] ?? '', fraction: match[2] ?? '', unit: match[3] ?? '', length: match[0].length };
}

function readSegment(input: string, body: string, start: number): Segment {
  const { whole, fraction, unit, length } = matchSegment(body, start);
  const rest = body.slice(start);
  if (whole === '' && fraction === '') throw new InvalidDurationError(`invalid duration "${input}": expected a number at "${rest}"`);
  if (unit === '') throw new InvalidDurationError(`invalid duration "${input}": missing unit after "${rest}" (valid units: ${UNITS})`);
  const perUnit = NS_PER_UNIT[unit];
  if (perUnit === undefined) {
    throw new InvalidDurationError(`invalid duration "${input}": unknown unit "${unit}" (valid units: ${UNITS})`);
  }
  // Integer nanoseconds, fraction truncated, as Go does: "1.1s" is exactly 1100 ms, not 1100.0000000000002.
  const fractionNs = fraction === '' ? 0n : (BigInt(fraction) * perUnit) / 10n ** BigInt(fraction.length);
  return { ns: BigInt(whole || '0') * perUnit + fractionNs, next: start + length };
}

/**
 * Milliseconds in a Go duration string (fractional for sub-millisecond durations: `"2us"` → 0.002).
 * Negative durations are accepted, as in Go; callers decide what a non-positive timeout means.
 * @throws InvalidDurationError for anything Go would reject (empty, no unit, unknown unit, overflow).
 */
export function parseDuration(input: string): number {
  const negative = input.startsWith('-');
  const body = negative || input.startsWith('+') ? input.slice(1) : input;
  if (body === '0') return 0;
  if (body === '') throw new InvalidDurationError(`invalid duration "${input}": expected a number and a unit, e.g. "10s"`);
  let total = 0n;
  for (let at = 0; at < body.length; ) {
    const segment = readSegment(input, body, at);
    total += segment.ns;
    at = segment.next;
  }
  if (total > MAX_NS) throw new InvalidDurationError(`invalid duration "${input}": out of range (max about 292 years)`);
  const ms = Number(total) / 1e6;
  return negative && ms !== 0 ? -ms : ms;
}
