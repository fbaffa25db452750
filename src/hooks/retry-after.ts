/**
 * The `Retry-After` header of a 429 answer, as Metacontroller reads it (docs/hook-protocol.md,
 * "Failures and Retry-After"): integer seconds or an RFC 1123 date (`Wed, 21 Oct 2015 07:28:00 GMT`, the
 * IMF-fixdate of RFC 9110); anything else, including no header, means 0. A date is relative to `nowMs`,
 * the caller's wall clock, so a hook whose clock runs ahead asks for a longer wait than it meant — the
 * same as Metacontroller's `time.Until`.
 */

const DELAY_SECONDS = /^\d+$/;
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** Milliseconds to wait, never negative; `nowMs` is milliseconds since the epoch. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number {
  const text = value?.trim() ?? '';
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  if (!IMF_FIXDATE.test(text)) return 0;
  const at = Date.parse(text);
  return Number.isNaN(at) ? 0 : Math.max(0, at - nowMs);
}
