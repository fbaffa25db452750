/**
 * The `Ready` condition loom keeps on controller objects' status, so `kubectl get cc` and
 * `kubectl wait --for=condition=Ready` show whether a controller runs and, if not, why.
 */
import { boundedText, formatProblem, type FieldProblem, type KubeObject } from '../api/index.ts';
import { JsonataCompileError } from '../hooks/index.ts';
import { isConflict, isNotFound } from '../kube/index.ts';
import type { Host } from './host.ts';
import { ReferenceNotAllowedError } from './reference-policy.ts';

/** One `status.conditions[]` entry. */
export interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

function sameCondition(a: Condition | undefined, b: Omit<Condition, 'type' | 'lastTransitionTime'>): boolean {
  return a !== undefined && a.status === b.status && a.reason === b.reason && a.message === b.message;
}


/** The condition to write: the transition time moves only when the status flips. */
function nextCondition(host: Host, previous: Condition | undefined, ready: Omit<Condition, 'type' | 'lastTransitionTime'>): Condition {
  const keep = previous?.status === ready.status ? previous.lastTransitionTime : undefined;
  const lastTransitionTime = keep ?? new Date(host.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { type: 'Ready', ...ready, lastTransitionTime };
}

/** Sets `Ready` on a controller object's status when it changed; write races are left to the next reconcile. */
export async function setReady(host: Host, obj: KubeObject, given: Omit<Condition, 'type' | 'lastTransitionTime'>): Promise<void> {
  // Cut (api/bounded-text.ts): a message quoting a huge bad input (a 1 MB token) would make the status
  // write too large for the API server, and then nothing at all would tell the user.
  const ready = { ...given, message: boundedText(given.message) };
  const status = (obj.status ?? {}) as { conditions?: Condition[] };
  const conditions = status.conditions ?? [];
  const previous = conditions.find((c) => c.type === 'Ready');
  if (sameCondition(previous, ready)) return;
  const others = conditions.filter((c) => c.type !== 'Ready');
  try {
    await host.writer.replaceStatus({ ...obj, status: { ...status, conditions: [...others, nextCondition(host, previous, ready)] } });
  } catch (err) {
    if (isConflict(err) || isNotFound(err)) return; // A newer object is on its way and is reconciled again.
    host.logger.warn({ err, controller: obj.metadata.name }, 'could not write the controller status');
  }
}

/**
 * `Ready=True` on a running controller. One that runs other than its spec says stays Ready (it
 * works), with reason `StartedWithWarnings` and a `SpecWarning` event naming each field.
 */
export async function announceRunning(host: Host, obj: KubeObject, warnings: FieldProblem[]): Promise<void> {
  if (warnings.length === 0) {
    await setReady(host, obj, { status: 'True', reason: 'Started', message: 'the controller is running' });
    return;
  }
  const said = warnings.map(formatProblem).join('; ');
  host.events.record(obj, { type: 'Warning', reason: 'SpecWarning', message: said });
  await setReady(host, obj, { status: 'True', reason: 'StartedWithWarnings', message: `the controller is running; ${said}` });
}

/** The `Ready=False` reason of a controller that cannot start for `err`. */
export function notReadyReason(err: unknown): string {
  if (err instanceof JsonataCompileError) return 'CompileError';
  return err instanceof ReferenceNotAllowedError ? 'ReferenceNotAllowed' : 'CreateError';
}

/** `CreateError` event and `Ready=False` with the reason, for a controller that cannot start. */
export async function notReady(host: Host, obj: KubeObject, why: { reason: string; message: string }): Promise<void> {
  host.events.record(obj, { type: 'Warning', reason: 'CreateError', message: `Cannot create new controller: ${why.message}` });
  await setReady(host, obj, { status: 'False', ...why });
}
