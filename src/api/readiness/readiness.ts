/**
 * The readiness of any object, judged as kstatus judges it, from the object alone: no reads, no clock
 * of its own. Every object passes the generic rules first (being deleted, a spec not yet observed,
 * `Stalled`, `Reconciling`); then the kinds with rules of their own
 * are judged by them (docs/ordering-and-readiness.md, "Readiness"), every other object by its `Ready`
 * condition, and an object none of that decides is Current.
 */
import { isRecord } from '../json-value.ts';
import { groupOf, type KubeObject } from '../object.ts';
import { claimReadiness, crdReadiness, disruptionBudgetReadiness, existsReadiness, namespaceReadiness, serviceReadiness } from './cluster-kinds.ts';
import { abnormalConditions, generationObserved, readyCondition, terminating } from './generic.ts';
import { jobReadiness, podReadiness } from './pods-and-jobs.ts';
import { current, type KindRule, type Readiness, type ReadinessOptions } from './verdict.ts';
import { daemonSetReadiness, deploymentReadiness, replicaSetReadiness, statefulSetReadiness } from './workloads.ts';

export { conditionOf, type Condition } from './fields.ts';
export { SCHEDULE_GRACE_MS } from './pods-and-jobs.ts';
export { READINESS_STATUSES, isReady, type Readiness, type ReadinessOptions, type ReadinessStatus } from './verdict.ts';

/**
 * The kinds with rules of their own, by `group/kind` (the core group is empty). The `extensions` group
 * is the workloads' old home, still served by old clusters and still found in manifests.
 */
const KIND_RULES: Readonly<Record<string, KindRule>> = Object.freeze({
  'apps/Deployment': deploymentReadiness,
  'extensions/Deployment': deploymentReadiness,
  'apps/StatefulSet': statefulSetReadiness,
  'apps/DaemonSet': daemonSetReadiness,
  'extensions/DaemonSet': daemonSetReadiness,
  'apps/ReplicaSet': replicaSetReadiness,
  'extensions/ReplicaSet': replicaSetReadiness,
  'batch/Job': jobReadiness,
  'batch/CronJob': existsReadiness,
  '/Pod': podReadiness,
  '/PersistentVolumeClaim': claimReadiness,
  '/Service': serviceReadiness,
  '/Namespace': namespaceReadiness,
  '/ConfigMap': existsReadiness,
  '/Secret': existsReadiness,
  'apiextensions.k8s.io/CustomResourceDefinition': crdReadiness,
  'policy/PodDisruptionBudget': disruptionBudgetReadiness,
});

/** The rule of `obj`'s kind, if it has one. */
function kindRuleOf(obj: KubeObject): KindRule | undefined {
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') return undefined;
  const key = `${groupOf(obj.apiVersion)}/${obj.kind}`;
  // Own properties only: a kind named `constructor` must not find Object's.
  return Object.hasOwn(KIND_RULES, key) ? KIND_RULES[key] : undefined;
}

/**
 * The readiness of `obj` (`undefined`: not found). Never throws, whatever the object holds: a field
 * of the wrong type reads as missing. `options.now` only gives an unschedulable Pod its grace.
 */
export function readinessOf(obj: KubeObject | undefined, options: ReadinessOptions = {}): Readiness {
  if (obj === undefined || obj === null) return { status: 'NotFound', message: 'not found' };
  if (!isRecord(obj)) return { status: 'Unknown', message: 'not an object' };
  const generic = terminating(obj) ?? generationObserved(obj) ?? abnormalConditions(obj);
  if (generic) return generic;
  const rule = kindRuleOf(obj);
  if (rule) return rule(obj, options);
  return readyCondition(obj) ?? current(obj, 'no condition says it is not ready');
}
