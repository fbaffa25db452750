/**
 * The rules every object passes, whatever its kind (docs/ordering-and-readiness.md, "Readiness"): being
 * deleted, a spec its controller has not observed yet, and the `Stalled` and `Reconciling` conditions
 * come before a kind's own rule; the `Ready` condition counts only for kinds without one.
 */
import type { KubeObject } from '../object.ts';
import { conditionsOf, describeCondition, hasIntAt, intAt, stringAt } from './fields.ts';
import { failed, inProgress, verdict, type Readiness } from './verdict.ts';

/** Terminating once `metadata.deletionTimestamp` is set. */
export function terminating(obj: KubeObject): Readiness | undefined {
  if (stringAt(obj, ['metadata', 'deletionTimestamp'], '') === '') return undefined;
  return verdict(obj, 'Terminating', 'being deleted');
}

/**
 * InProgress when `status.observedGeneration` differs from `metadata.generation`. An object that
 * reports no observed generation is not judged by it: many controllers never write one.
 */
export function generationObserved(obj: KubeObject): Readiness | undefined {
  if (!hasIntAt(obj, ['metadata', 'generation']) || !hasIntAt(obj, ['status', 'observedGeneration'])) return undefined;
  const generation = intAt(obj, ['metadata', 'generation'], 0);
  const observed = intAt(obj, ['status', 'observedGeneration'], 0);
  if (observed === generation) return undefined;
  return inProgress(obj, `generation ${generation} not observed yet (status.observedGeneration is ${observed})`);
}

/**
 * The abnormal-true conditions: `Stalled=True` is Failed, `Reconciling=True` InProgress. When an object
 * carries both, Stalled wins: it says more about what to do.
 */
export function abnormalConditions(obj: KubeObject): Readiness | undefined {
  const conditions = conditionsOf(obj);
  const stalled = conditions.find((c) => c.type === 'Stalled' && c.status === 'True');
  if (stalled) return failed(obj, describeCondition(stalled));
  const reconciling = conditions.find((c) => c.type === 'Reconciling' && c.status === 'True');
  return reconciling ? inProgress(obj, describeCondition(reconciling)) : undefined;
}

const READY_STATUSES: readonly string[] = ['True', 'False', 'Unknown'];

/**
 * The `Ready` condition, for kinds without a rule of their own: True is Current, False or Unknown
 * InProgress. A Ready condition with any other status says nothing, and neither does its absence:
 * a controller may write Ready only once it is True.
 */
export function readyCondition(obj: KubeObject): Readiness | undefined {
  const ready = conditionsOf(obj).find((c) => c.type === 'Ready' && READY_STATUSES.includes(c.status));
  if (!ready) return undefined;
  return verdict(obj, ready.status === 'True' ? 'Current' : 'InProgress', describeCondition(ready));
}
