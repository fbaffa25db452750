/**
 * Readiness of Pods and Jobs, as kstatus judges them. Both run to an end, and kstatus calls a Job
 * Current once it has started (it may run for ever): a dependent that needs the Job's result says so
 * with `readyWhen`. loom parts from kstatus for Pods only: a Pod whose phase is `Failed` is Failed, not
 * Current, and so is a pending Pod whose init container crash-loops, since nothing that waits for them
 * should go on.
 */
import type { KubeObject } from '../object.ts';
import { boolAt, clip, conditionsOf, describeCondition, fieldAt, intAt, stringAt } from './fields.ts';
import { current, failed, inProgress, verdict, type Readiness, type ReadinessOptions } from './verdict.ts';

/** How long a Pod the scheduler cannot place counts as still being scheduled (kstatus's window). */
export const SCHEDULE_GRACE_MS = 15_000;

/** How many crash-looping containers a message names. */
const NAMED_CONTAINERS = 3;

/** The names of the containers (init containers too) waiting in CrashLoopBackOff. */
function crashLooping(obj: KubeObject): string[] {
  const names: string[] = [];
  for (const list of ['initContainerStatuses', 'containerStatuses']) {
    const statuses = fieldAt(obj, ['status', list]);
    if (!Array.isArray(statuses)) continue;
    for (const cs of statuses as unknown[]) {
      if (stringAt(cs, ['state', 'waiting', 'reason'], '') === 'CrashLoopBackOff') names.push(stringAt(cs, ['name'], '(unnamed)'));
    }
  }
  return names;
}

/** Failed when a container crash-loops, naming the first few. */
function crashLoopVerdict(obj: KubeObject): Readiness | undefined {
  const names = crashLooping(obj);
  if (names.length === 0) return undefined;
  const shown = names.slice(0, NAMED_CONTAINERS).map(clip).join(', ');
  const more = names.length > NAMED_CONTAINERS ? ` and ${names.length - NAMED_CONTAINERS} more` : '';
  return failed(obj, `containers in CrashLoopBackOff: ${shown}${more}`);
}

function runningPod(obj: KubeObject): Readiness {
  const conditions = conditionsOf(obj);
  if (conditions.some((c) => c.type === 'Ready' && c.status === 'True')) return current(obj, 'running and ready');
  const ready = conditions.find((c) => c.type === 'Ready');
  return crashLoopVerdict(obj) ?? inProgress(obj, ready ? `running, not ready: ${describeCondition(ready)}` : 'running, not ready');
}

/** Whether `now` is still within the scheduling grace of the Pod's creation. */
function withinGrace(obj: KubeObject, now: number | undefined): boolean {
  const created = Date.parse(stringAt(obj, ['metadata', 'creationTimestamp'], ''));
  return now !== undefined && Number.isFinite(created) && now - created < SCHEDULE_GRACE_MS;
}

function pendingPod(obj: KubeObject, options: ReadinessOptions): Readiness {
  const crash = crashLoopVerdict(obj);
  if (crash) return crash;
  const scheduled = conditionsOf(obj).find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (scheduled?.reason !== 'Unschedulable') return inProgress(obj, scheduled ? `pending: ${describeCondition(scheduled)}` : 'pending');
  if (withinGrace(obj, options.now)) return inProgress(obj, `not scheduled yet: ${describeCondition(scheduled)}`);
  return failed(obj, `cannot be scheduled: ${describeCondition(scheduled)}`);
}

/** What the Pod says about its end: `status.reason` and `status.message`, when set. */
function endWords(obj: KubeObject): string {
  const words = [stringAt(obj, ['status', 'reason'], ''), stringAt(obj, ['status', 'message'], '')].filter((w) => w !== '');
  return words.length === 0 ? '' : ` (${clip(words.join(': '))})`;
}

/**
 * A Pod is Current once it has succeeded, or runs with `Ready=True`. Failed when it failed, when a
 * container crash-loops, or when the scheduler cannot place it past the grace (with no clock in
 * `options`, there is no grace). A phase loom does not know (`Unknown`: its node is lost) is Unknown.
 */
export function podReadiness(obj: KubeObject, options: ReadinessOptions): Readiness {
  const phase = stringAt(obj, ['status', 'phase'], '');
  switch (phase) {
    case 'Succeeded': return current(obj, 'completed successfully');
    case 'Failed': return failed(obj, `phase is Failed${endWords(obj)}`);
    case 'Running': return runningPod(obj);
    case 'Pending': return pendingPod(obj, options);
    case '': return inProgress(obj, 'phase not reported yet');
    default: return verdict(obj, 'Unknown', `phase is ${clip(phase)}${endWords(obj)}`);
  }
}

/** The verdict of the Job's end conditions, the first that holds in their order. */
function jobEnd(obj: KubeObject): Readiness | undefined {
  const suspend = boolAt(obj, ['spec', 'suspend'], false);
  for (const c of conditionsOf(obj)) {
    if (c.status !== 'True') continue;
    if (c.type === 'Complete') return current(obj, `complete, ${intAt(obj, ['status', 'succeeded'], 0)} succeeded`);
    if (c.type === 'Failed') return failed(obj, `${describeCondition(c)}; failed pods: ${intAt(obj, ['status', 'failed'], 0)}`);
    // Suspended by its spec, as asked: nothing to wait for. Suspended while the spec says run: resuming.
    if (c.type === 'Suspended' && suspend) return current(obj, 'suspended');
  }
  return undefined;
}

/**
 * A Job is Current once it is complete, suspended as its spec asks, or started; Failed once its
 * `Failed` condition is True; InProgress until it starts.
 */
export function jobReadiness(obj: KubeObject): Readiness {
  const end = jobEnd(obj);
  if (end) return end;
  if (stringAt(obj, ['status', 'startTime'], '') === '') return inProgress(obj, 'not started yet (no status.startTime)');
  const counts = ['succeeded', 'active', 'failed'].map((field) => `${intAt(obj, ['status', field], 0)} ${field}`).join(', ');
  return current(obj, `started, ${counts} (a started Job counts as ready; readyWhen can wait for its end)`);
}
