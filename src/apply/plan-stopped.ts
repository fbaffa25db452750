/**
 * The writes of a plan not started because the plan was stopped: its answer went stale
 * (`core/stale-answer.ts`) while it ran. They are not failures of the child: the sync that made the plan
 * ends without a status write, and the next sync plans again from the newer state.
 */

/** A write not started because its plan was stopped. */
export class PlanStoppedError extends Error {
  override readonly name = 'PlanStoppedError';

  /** Why the plan stopped. */
  readonly reason: string;

  /**
   * `what`: the write ("create ConfigMap ns/a"); `reason`: why the plan stopped; `inFlight`: the write
   * had been started, and was given up (its controller stopping aborts it), so it may have been made.
   */
  constructor(what: string, reason: string, inFlight = false) {
    super(`${what} ${inFlight ? 'given up in flight' : 'not started'}: ${reason}`);
    this.reason = reason;
  }
}

/**
 * Why a plan is stopped before its next write (`writes`: whether that decision calls the API), asking
 * `stopIf` until it gives a reason, which then holds for every write after it; a decision that writes
 * nothing is never stopped.
 */
export function planStopper(stopIf: (() => string | undefined) | undefined): (writes: boolean) => string | undefined {
  let reason: string | undefined;
  return (writes) => {
    if (!writes) return undefined;
    reason ??= stopIf?.();
    return reason;
  };
}
