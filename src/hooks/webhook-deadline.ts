/**
 * How a webhook learns how long loom will wait for its answer (docs/hook-protocol.md, "Deadline"):
 * each request carries `X-Loom-Timeout-Ms`, the milliseconds left of the call's timeout when the
 * request goes out. Relative, as Envoy's `x-envoy-expected-rq-timeout-ms` and gRPC's `grpc-timeout`
 * are, so a hook whose clock is off still reads it right; the time spent before sending (reading
 * credentials) is already taken off.
 */
import { HOOK_TIMEOUT_HEADER } from '../api/hook-wire.ts';

/** The header's name, as written on the wire. */
export const REMAINING_TIMEOUT_HEADER = HOOK_TIMEOUT_HEADER;

/**
 * `headers` with {@link REMAINING_TIMEOUT_HEADER} set to what is left until `deadline` at `now`
 * (whole milliseconds, never negative). A header of the same name in any case is dropped: the value
 * is loom's, not a caller's.
 */
export function withRemainingTimeout(headers: Readonly<Record<string, string>>, deadline: number, now: number): Record<string, string> {
  const lower = REMAINING_TIMEOUT_HEADER.toLowerCase();
  const kept = Object.entries(headers).filter(([name]) => name.toLowerCase() !== lower);
  return { ...Object.fromEntries(kept), [REMAINING_TIMEOUT_HEADER]: String(Math.max(0, Math.floor(deadline - now))) };
}
