/**
 * The readiness of any object, judged as kstatus (sigs.k8s.io/cli-utils `pkg/kstatus`) judges it, from the
 * object alone: no reads, no clock. Kinds with rules of their own are judged by them
 * (docs/ordering-and-readiness.md, "Readiness"); every other object by the generic rules: a spec not yet
 * observed, and the `Stalled`, `Reconciling` and `Ready` conditions.
 */
import { isRecord } from '../../api/json-value.ts';
import type { KubeObject } from '../../api/object.ts';

/** kstatus's statuses. Only `Current` is ready. */
export type ReadinessStatus = 'Current' | 'InProgress' | 'Failed' | 'Terminating' | 'NotFound' | 'Unknown';

/** Every {@link ReadinessStatus}. */
export const READINESS_STATUSES: readonly ReadinessStatus[] = ['Current', 'InProgress', 'Failed', 'Terminating', 'NotFound', 'Unknown'];

/** A verdict and, when it is not `Current`, why (for conditions, events and `loom explain`). */
export interface Readiness {
  status: ReadinessStatus;
  message: string;
}

/** Whether `readiness` counts as ready: `Current`, nothing else. */
export function isReady(readiness: Readiness): boolean {
  return readiness.status === 'Current';
}

interface Condition {
  status: string;
  reason: string;
  message: string;
}

/** The `status.conditions[]` entry of `type`, if the object has one. */
export function conditionOf(obj: KubeObject, type: string): Condition | undefined {
  const conditions = isRecord(obj.status) ? obj.status.conditions : undefined;
  if (!Array.isArray(conditions)) return undefined;
  const found: unknown = conditions.find((c) => isRecord(c) && c.type === type);
  if (!isRecord(found)) return undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return { status: text(found.status), reason: text(found.reason), message: text(found.message) };
}

/** InProgress when `status.observedGeneration` is present and behind `metadata.generation`. */
function generationCheck(obj: KubeObject): Readiness | undefined {
  const observed = isRecord(obj.status) ? obj.status.observedGeneration : undefined;
  const generation = obj.metadata.generation;
  if (typeof observed !== 'number' || typeof generation !== 'number' || observed >= generation) return undefined;
  return { status: 'InProgress', message: `${obj.kind} generation is ${generation}, but latest observed generation is ${observed}` };
}

/** A condition's words, for a message: its message, else its reason, else `fallback`. */
function wordsOf(condition: Condition, fallback: string): string {
  return condition.message || condition.reason || fallback;
}

/** The generic conditions: `Stalled=True` fails, `Reconciling=True` and a `Ready` that is not True hold. */
function conditionsCheck(obj: KubeObject): Readiness | undefined {
  const stalled = conditionOf(obj, 'Stalled');
  if (stalled?.status === 'True') return { status: 'Failed', message: wordsOf(stalled, 'Stalled') };
  const reconciling = conditionOf(obj, 'Reconciling');
  if (reconciling?.status === 'True') return { status: 'InProgress', message: wordsOf(reconciling, 'Reconciling') };
  const ready = conditionOf(obj, 'Ready');
  if (ready && ready.status !== 'True') return { status: 'InProgress', message: wordsOf(ready, 'Ready is not True') };
  return undefined;
}

/** The generic rules, which every object passes before its kind's own. */
function genericReadiness(obj: KubeObject): Readiness {
  return generationCheck(obj) ?? conditionsCheck(obj) ?? { status: 'Current', message: 'Resource is current' };
}

/**
 * The readiness of `obj` (`undefined`: not found). Never throws, whatever the object holds: a status
 * of the wrong shape reads as missing.
 */
export function readinessOf(obj: KubeObject | undefined): Readiness {
  if (!obj) return { status: 'NotFound', message: 'Resource not found' };
  if (obj.metadata.deletionTimestamp) return { status: 'Terminating', message: 'Resource scheduled for deletion' };
  return genericReadiness(obj);
}
