/**
 * Readiness of the replicated workloads (Deployment, StatefulSet, DaemonSet, ReplicaSet), as kstatus
 * judges them: from the replica counts their controllers report against what the spec asks for. A
 * count that is missing, or not a whole number, reads as 0; `spec.replicas` defaults to 1, as their
 * controllers default it.
 */
import type { KubeObject } from '../object.ts';
import { clip, conditionsOf, describeCondition, hasIntAt, intAt, stringAt, type Condition } from './fields.ts';
import { current, failed, firstOf, inProgress, shortOf, unless, type Readiness } from './verdict.ts';

/** `spec.progressDeadlineSeconds` that means "no deadline": the Deployment controller then never reports progress. */
const NO_DEADLINE = 2147483647;

const count = (obj: KubeObject, field: string): number => intAt(obj, ['status', field], 0);
const wanted = (obj: KubeObject): number => intAt(obj, ['spec', 'replicas'], 1);

/** InProgress while more replicas exist than the spec asks for: the extra ones are on their way out. */
function extraReplicas(obj: KubeObject, have: number, want: number): Readiness | undefined {
  return have > want ? inProgress(obj, `${have - want} replicas more than the ${want} wanted, waiting for them to terminate`) : undefined;
}

interface DeploymentProgress {
  /** The `Progressing` condition that says the progress deadline passed. */
  deadline?: Condition;
  /** The new ReplicaSet is available, or the Deployment has no deadline, so no `Progressing` to wait for. */
  progressed: boolean;
  available: boolean;
}

function deploymentProgress(obj: KubeObject): DeploymentProgress {
  const progress: DeploymentProgress = { progressed: intAt(obj, ['spec', 'progressDeadlineSeconds'], NO_DEADLINE) === NO_DEADLINE, available: false };
  for (const c of conditionsOf(obj)) {
    if (c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded') return { ...progress, deadline: c };
    if (c.type === 'Progressing' && c.status === 'True' && c.reason === 'NewReplicaSetAvailable') progress.progressed = true;
    if (c.type === 'Available' && c.status === 'True') progress.available = true;
  }
  return progress;
}

/**
 * A Deployment is Current once every wanted replica exists, is updated, available and ready, no old one
 * is left, and its conditions say the new ReplicaSet is available. Failed past its progress deadline.
 */
export function deploymentReadiness(obj: KubeObject): Readiness {
  const progress = deploymentProgress(obj);
  if (progress.deadline) return failed(obj, `progress deadline exceeded: ${describeCondition(progress.deadline)}`);
  const want = wanted(obj);
  const replicas = count(obj, 'replicas');
  const updated = count(obj, 'updatedReplicas');
  return firstOf(
    shortOf(obj, replicas, want, 'replicas created'),
    shortOf(obj, updated, want, 'replicas updated'),
    extraReplicas(obj, replicas, want),
    shortOf(obj, count(obj, 'availableReplicas'), updated, 'updated replicas available'),
    shortOf(obj, count(obj, 'readyReplicas'), want, 'replicas ready'),
    unless(obj, progress.progressed, 'new ReplicaSet not available yet (no Progressing condition with reason NewReplicaSetAvailable)'),
    unless(obj, progress.available, 'Available condition is not True'),
  ) ?? current(obj, `${replicas} of ${want} replicas updated, available and ready`);
}

/** A partitioned rollout is done once every replica at or above the partition is updated. */
function partitionRollout(obj: KubeObject, want: number): Readiness | undefined {
  const partition = intAt(obj, ['spec', 'updateStrategy', 'rollingUpdate', 'partition'], -1);
  if (partition === -1) return undefined;
  const updated = count(obj, 'updatedReplicas');
  return shortOf(obj, updated, want - partition, `replicas updated (partition ${partition})`)
    ?? current(obj, `${updated} replicas updated at or above partition ${partition}`);
}

/**
 * A StatefulSet is Current once every wanted replica exists and is ready, no extra one is left, and its
 * rollout is done (partitioned or not). With the OnDelete strategy its user rolls it, so it is Current
 * at once. Its controller sets no conditions, so it never counts as Failed.
 */
export function statefulSetReadiness(obj: KubeObject): Readiness {
  if (stringAt(obj, ['spec', 'updateStrategy', 'type'], '') === 'OnDelete') return current(obj, 'update strategy OnDelete: its user rolls it out');
  const want = wanted(obj);
  const replicas = count(obj, 'replicas');
  const currentRevision = stringAt(obj, ['status', 'currentRevision'], '');
  const updateRevision = stringAt(obj, ['status', 'updateRevision'], '');
  return firstOf(
    shortOf(obj, replicas, want, 'replicas created'),
    shortOf(obj, count(obj, 'readyReplicas'), want, 'replicas ready'),
    extraReplicas(obj, replicas, want),
    partitionRollout(obj, want),
    shortOf(obj, count(obj, 'currentReplicas'), want, 'replicas on the current revision'),
    unless(obj, currentRevision === updateRevision, `revision ${clip(updateRevision) || '(none)'} not rolled out yet (current is ${clip(currentRevision) || '(none)'})`),
  ) ?? current(obj, `${replicas} of ${want} replicas ready on the current revision`);
}

/**
 * A DaemonSet is Current once its controller has observed it and reports as many pods scheduled,
 * updated, available and ready as nodes that should run one. Unlike other kinds, a DaemonSet without
 * an observed generation is InProgress: its controller always writes one.
 */
export function daemonSetReadiness(obj: KubeObject): Readiness {
  if (!hasIntAt(obj, ['metadata', 'generation'])) return inProgress(obj, 'metadata.generation not set yet');
  if (!hasIntAt(obj, ['status', 'observedGeneration'])) return inProgress(obj, 'not observed by its controller yet (no status.observedGeneration)');
  if (!hasIntAt(obj, ['status', 'desiredNumberScheduled'])) return inProgress(obj, 'status.desiredNumberScheduled not reported yet');
  const want = count(obj, 'desiredNumberScheduled');
  return firstOf(
    shortOf(obj, count(obj, 'currentNumberScheduled'), want, 'pods scheduled'),
    shortOf(obj, count(obj, 'updatedNumberScheduled'), want, 'pods updated'),
    shortOf(obj, count(obj, 'numberAvailable'), want, 'pods available'),
    shortOf(obj, count(obj, 'numberReady'), want, 'pods ready'),
  ) ?? current(obj, `${want} of ${want} pods scheduled, updated, available and ready`);
}

/**
 * A ReplicaSet is Current once every wanted replica is labelled, available and ready and no extra one
 * is left. `ReplicaFailure=True` (a quota, a refused pod) holds it InProgress: it may clear by itself.
 */
export function replicaSetReadiness(obj: KubeObject): Readiness {
  const failure = conditionsOf(obj).find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  if (failure) return inProgress(obj, `cannot create replicas: ${describeCondition(failure)}`);
  const want = wanted(obj);
  const replicas = count(obj, 'replicas');
  return firstOf(
    shortOf(obj, count(obj, 'fullyLabeledReplicas'), want, 'replicas fully labelled'),
    shortOf(obj, count(obj, 'availableReplicas'), want, 'replicas available'),
    shortOf(obj, count(obj, 'readyReplicas'), want, 'replicas ready'),
    extraReplicas(obj, replicas, want),
  ) ?? current(obj, `${replicas} of ${want} replicas available and ready`);
}
