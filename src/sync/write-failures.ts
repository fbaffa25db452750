/**
 * The error a sync ends with when some of its child (or attachment) writes failed: one message that
 * stays readable however many writes there were. Each attempted failure is quoted, up to
 * {@link QUOTED_FAILURES}; writes an earlier failure doomed (not attempted) are only counted, as their
 * cause is already quoted.
 */
import { boundedJoin } from '../api/index.ts';
import { NotAttemptedError } from '../apply/index.ts';
import { errorChain } from '../engine/index.ts';

/** Failures quoted in full; more are counted. */
export const QUOTED_FAILURES = 10;

/** The AggregateError for `failures` (non-empty) of writes of `what` ("child", "attachment"). */
export function writeFailures(failures: readonly Error[], what: string): AggregateError {
  const attempted = failures.filter((f) => !(f instanceof NotAttemptedError));
  const skipped = failures.length - attempted.length;
  // Each cut: an API server's answer can quote the child it refused.
  const quoted = attempted.slice(0, QUOTED_FAILURES).map((f) => boundedJoin(errorChain(f), ': '));
  const unquoted = attempted.length - quoted.length;
  const parts = [
    `${attempted.length} ${what} write(s) failed: ${quoted.join('; ')}`,
    ...(unquoted > 0 ? [`${unquoted} more failed`] : []),
    ...(skipped > 0 ? [`${skipped} more not attempted, as the failure before them dooms them`] : []),
  ];
  return new AggregateError(failures, parts.join('; '));
}
