/**
 * Carries out child plans through `kube/`, past failures. What crosses the boundary: `executePlan`,
 * its outcome type, the apply-record store it keeps, and the key of a child in that store.
 */
export { executePlan, type ChildOutcome, type ExecutePlanOptions } from './execute-plan.ts';
export { childKey, type AppliedRecords } from './applied-records.ts';
export { NotAttemptedError } from './doomed-writes.ts';
export { PlanStoppedError } from './plan-stopped.ts';
