/**
 * The vocabulary of readiness: kstatus's statuses, the verdict a rule returns, and the helpers every
 * kind's rule words its verdict with ("Deployment: 1 of 3 replicas updated"), so messages name the kind
 * and say what is missing the same way for every kind.
 */
import type { KubeObject } from '../object.ts';
import { clip } from './fields.ts';

/** kstatus's statuses. Only `Current` is ready. */
export type ReadinessStatus = 'Current' | 'InProgress' | 'Failed' | 'Terminating' | 'NotFound' | 'Unknown';

/** Every {@link ReadinessStatus}. */
export const READINESS_STATUSES: readonly ReadinessStatus[] = ['Current', 'InProgress', 'Failed', 'Terminating', 'NotFound', 'Unknown'];

/** A verdict and why (for conditions, events and `loom explain`). */
export interface Readiness {
  status: ReadinessStatus;
  message: string;
}

/** What a caller may add to the object itself. */
export interface ReadinessOptions {
  /**
   * Now, in milliseconds since the epoch. Only a Pod the scheduler cannot place reads it: it is given a
   * short grace after its creation before it counts as `Failed`. Without it there is no grace, since the
   * rules read no clock of their own.
   */
  now?: number;
}

/** The rule of one kind: called only once the generic rules have not decided. */
export type KindRule = (obj: KubeObject, options: ReadinessOptions) => Readiness;

/** Whether `readiness` counts as ready: `Current`, nothing else. */
export function isReady(readiness: Readiness): boolean {
  return readiness.status === 'Current';
}

/** The object's kind, for messages; `object` when it has none a message could show. */
export function kindOf(obj: KubeObject): string {
  return typeof obj.kind === 'string' && obj.kind !== '' ? clip(obj.kind) : 'object';
}

/** A verdict on `obj`, its message prefixed with the kind. */
export function verdict(obj: KubeObject, status: ReadinessStatus, text: string): Readiness {
  return { status, message: `${kindOf(obj)}: ${text}` };
}

/** `obj` is ready; `text` says how loom knows. */
export function current(obj: KubeObject, text: string): Readiness {
  return verdict(obj, 'Current', text);
}

/** `obj` is on its way; `text` says what it still lacks. */
export function inProgress(obj: KubeObject, text: string): Readiness {
  return verdict(obj, 'InProgress', text);
}

/** `obj` will not get there without a change; `text` says why. */
export function failed(obj: KubeObject, text: string): Readiness {
  return verdict(obj, 'Failed', text);
}

/** "`have` of `want` `what`" when `have` falls short of `want`: the shortfall a workload rule reports. */
export function shortOf(obj: KubeObject, have: number, want: number, what: string): Readiness | undefined {
  return have < want ? inProgress(obj, `${have} of ${want} ${what}`) : undefined;
}

/** InProgress with `text` unless `done`. */
export function unless(obj: KubeObject, done: boolean, text: string): Readiness | undefined {
  return done ? undefined : inProgress(obj, text);
}

/** The first verdict given: rules list their checks in kstatus's order and the first that fails decides. */
export function firstOf(...verdicts: (Readiness | undefined)[]): Readiness | undefined {
  return verdicts.find((v) => v !== undefined);
}
