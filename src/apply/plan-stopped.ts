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

  /** `what`: the write ("create ConfigMap ns/a"); `reason`: why the plan stopped. */
  constructor(what: string, reason: string) {
    super(`${what} not started: ${reason}`);
    this.reason = reason;
  }
}
