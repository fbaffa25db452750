/**
 * The parent's `Ready` condition (docs/ordering-and-readiness.md, "The parent's Ready condition"):
 * aggregated from what a sync did to the children. True only when every desired child exists, is
 * ready and every write landed; otherwise False with the reason and the first few children holding it
 * back. The message is deterministic and `lastTransitionTime` moves only with the status, so a parent
 * whose children stay as they are costs no status write. Pure: the time comes in.
 */
import type { Json } from '../api/object.ts';
import type { ChildPolicies } from '../api/controller-spec.ts';
import { isRecord } from '../api/json-value.ts';
import type { JsonObject } from './parent-status.ts';
import { isReady, type Readiness } from '../api/readiness/index.ts';
import type { ChildRef } from './child-plan.ts';
import { describeRef } from './child-order.ts';
import { describeHold, type Hold } from './order-steps.ts';
import { withCondition } from './updated-condition.ts';

/** `type` of the condition. */
export const READY_CONDITION_TYPE = 'Ready';

/** Why the parent is, or is not, ready. */
export type ReadyReason = 'ChildrenReady' | 'ChildrenHeld' | 'ChildrenNotReady' | 'WriteFailed' | 'InvalidOrder';

/** What one sync did to a parent's children, as the condition needs it. */
export interface ChildrenReport {
  /** Whether any child uses waves or dependsOn (then the condition is written whatever the spec says). */
  ordered: boolean;
  /** Each desired child, in desired order, with its readiness after the sync's writes. */
  children: Array<{ ref: ChildRef; readiness: Readiness }>;
  /** Children (and deletions) held in this sync. */
  held: Hold[];
  /** The failed writes, as messages. */
  failed: string[];
  /** Why the children's order was refused (nothing was written), if it was. */
  invalidOrder?: string[] | undefined;
}

/** Children or failures named in a message. */
export const NAMED_IN_MESSAGE = 3;

function named(items: readonly string[], sep: string): string {
  const more = items.length - NAMED_IN_MESSAGE;
  return items.slice(0, NAMED_IN_MESSAGE).join(sep) + (more > 0 ? `${sep}and ${more} more` : '');
}

/** Status, reason and message from a report. */
function verdictOf(report: ChildrenReport): { status: 'True' | 'False'; reason: ReadyReason; message: string } {
  if (report.invalidOrder) return { status: 'False', reason: 'InvalidOrder', message: named(report.invalidOrder, '; ') };
  if (report.failed.length > 0) return { status: 'False', reason: 'WriteFailed', message: named(report.failed, '; ') };
  if (report.held.length > 0) return { status: 'False', reason: 'ChildrenHeld', message: named(report.held.map(describeHold), '; ') };
  const unready = report.children.filter((c) => !isReady(c.readiness));
  if (unready.length > 0) {
    const says = unready.map(({ ref, readiness }) => `${describeRef(ref)} is ${readiness.status}${readiness.message ? `: ${readiness.message}` : ''}`);
    return { status: 'False', reason: 'ChildrenNotReady', message: named(says, '; ') };
  }
  const count = report.children.length;
  return { status: 'True', reason: 'ChildrenReady', message: count === 1 ? '1 child is ready' : `${count} children are ready` };
}

/**
 * Whether a sync writes the Ready condition: it has a report of its child writes, and the controller
 * sets `spec.readyCondition` or a child uses waves or dependsOn.
 */
export function wantsReadyCondition(report: ChildrenReport | undefined, readyCondition: boolean | undefined): report is ChildrenReport {
  return report !== undefined && (report.ordered || readyCondition === true);
}

/**
 * Whether a controller's children are in order, so that its syncs write the Ready condition whatever
 * the spec says: a child type's rule sets a wave, or the desired children use waves or dependsOn.
 * Children that are going do not count: the condition must not come and go with them between syncs.
 */
export function ordersChildren(rules: readonly ChildPolicies[], desired: { ordered: boolean }): boolean {
  return desired.ordered || rules.some((rule) => rule.wave !== undefined);
}

/** The `Ready` entry of a status, if it has one. */
function currentReady(status: unknown): { [key: string]: Json } | undefined {
  const conditions = isRecord(status) ? status.conditions : undefined;
  if (!Array.isArray(conditions)) return undefined;
  const found: unknown = conditions.find((c) => isRecord(c) && c.type === READY_CONDITION_TYPE);
  return isRecord(found) ? (found as { [key: string]: Json }) : undefined;
}

/** RFC 3339 to the second, as Kubernetes writes condition times. */
function timestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** What the condition is computed from. */
export interface ReadyConditionInput {
  report: ChildrenReport;
  /** The parent's `metadata.generation`. */
  generation: number | undefined;
  /** The parent's status now: its `Ready` condition's time is kept while the status stays. */
  current: unknown;
  /**
   * Milliseconds since the epoch. Absent (an offline render, which has no clock to go by): a
   * `lastTransitionTime` the status keeps is kept, and a new one is left out.
   */
  now?: number | undefined;
}

/** The `Ready` condition of a parent after a sync. */
export function readyCondition(input: ReadyConditionInput): JsonObject & { type: string } {
  const { status, reason, message } = verdictOf(input.report);
  const previous = currentReady(input.current);
  const kept = previous?.status === status && typeof previous.lastTransitionTime === 'string' ? previous.lastTransitionTime : undefined;
  const condition: JsonObject & { type: string } = { type: READY_CONDITION_TYPE, status, reason, message };
  if (input.generation !== undefined) condition.observedGeneration = input.generation;
  const time = kept ?? (input.now === undefined ? undefined : timestamp(input.now));
  if (time !== undefined) condition.lastTransitionTime = time;
  return condition;
}

/**
 * A copy of `status` with the `Ready` condition of `input` in `status.conditions`, replacing a `Ready`
 * entry the hook returned.
 * @throws StatusConditionsError when `status.conditions` is neither a list nor `null`.
 */
export function withReadyCondition(status: Readonly<JsonObject>, input: ReadyConditionInput): JsonObject {
  return withCondition(status, readyCondition(input));
}
