/**
 * Readiness of the kinds one field decides: claims, Services, CustomResourceDefinitions, Namespaces,
 * PodDisruptionBudgets, and the kinds that are ready once they exist (ConfigMap, Secret, CronJob).
 */
import type { KubeObject } from '../object.ts';
import { clip, conditionsOf, describeCondition, stringAt } from './fields.ts';
import { current, failed, inProgress, verdict, type Readiness } from './verdict.ts';

/** A PersistentVolumeClaim is Current once Bound, InProgress before. */
export function claimReadiness(obj: KubeObject): Readiness {
  const phase = stringAt(obj, ['status', 'phase'], '');
  if (phase === 'Bound') return current(obj, 'bound');
  return inProgress(obj, phase === '' ? 'not bound yet (no phase reported)' : `not bound yet (phase is ${clip(phase)})`);
}

/**
 * A Service is Current once it exists, except a LoadBalancer without a cluster IP yet. As in kstatus,
 * a load balancer's external address is not waited for (`readyWhen` can wait for
 * `status.loadBalancer.ingress`).
 */
export function serviceReadiness(obj: KubeObject): Readiness {
  const type = stringAt(obj, ['spec', 'type'], 'ClusterIP');
  if (type === 'LoadBalancer' && stringAt(obj, ['spec', 'clusterIP'], '') === '') return inProgress(obj, 'type LoadBalancer has no cluster IP yet');
  return current(obj, `type ${clip(type)} exists`);
}

/**
 * A CustomResourceDefinition is Current once `Established=True`; Failed when its names are refused, or
 * it is not established for another reason than installing. The first condition that decides, in
 * their order, wins.
 */
export function crdReadiness(obj: KubeObject): Readiness {
  for (const c of conditionsOf(obj)) {
    if (c.type === 'NamesAccepted' && c.status === 'False') return failed(obj, `names not accepted: ${describeCondition(c)}`);
    if (c.type === 'Established' && c.status === 'False' && c.reason !== 'Installing') return failed(obj, `not established: ${describeCondition(c)}`);
    if (c.type === 'Established' && c.status === 'True') return current(obj, 'established');
  }
  return inProgress(obj, 'not established yet (installing)');
}

/**
 * A Namespace is Current while Active (or before its phase is reported: the API server makes it
 * Active at once), Terminating once its phase says so.
 */
export function namespaceReadiness(obj: KubeObject): Readiness {
  const phase = stringAt(obj, ['status', 'phase'], '');
  return phase === 'Terminating' ? verdict(obj, 'Terminating', 'phase is Terminating') : current(obj, 'active');
}

/**
 * A PodDisruptionBudget is Current once its controller has observed its generation (the generic rule
 * already held it until then). Healthy pod counts are not waited for: a budget usually comes before
 * the pods it guards, and would hold them for ever.
 */
export function disruptionBudgetReadiness(obj: KubeObject): Readiness {
  return current(obj, 'its spec is observed; the pods it guards are not waited for');
}

/** ConfigMaps, Secrets and CronJobs are Current once they exist: nothing in them is reconciled. */
export function existsReadiness(obj: KubeObject): Readiness {
  return current(obj, 'exists');
}
