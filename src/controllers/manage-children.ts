/**
 * Converging the objects a controller owns — a CompositeController's children, a DecoratorController's
 * attachments — to the hook's validated answer: plan per object (create, update by the type's update
 * method, delete what is no longer wanted), execute, count. Shared by both controller kinds.
 */
import type { Logger } from 'pino';
import { objectKey, type ChildPolicies, type KubeObject, type UpdateMethod } from '../api/index.ts';
import { childKey, executePlan, type AppliedRecords, type ChildOutcome } from '../apply/index.ts';
import {
  childOrderOf, childRefOf, fingerprintOf, goingChildren, orderKeyOf, ordersChildren, planChildrenInSlices, removalOrderOf,
  type ChildDecision, type ChildOrder, type ChildRef, type ChildrenReport, type PlanPolicies, type Readiness,
} from '../core/index.ts';
import { boundedJoin } from '../api/index.ts';
import { errorChain } from '../engine/index.ts';
import { kstatusJudge, type ReadinessJudge } from '../sync/readiness-judge.ts';
import { writeInOrder } from '../sync/ordered-writes.ts';
import { recordingWriter } from './written-objects.ts';
import { inTurns, SLICE_CHILDREN } from './in-turns.ts';
import type { ReadonlyObjectStore, ResourceType } from '../kube/index.ts';
import type { ControllerLabels } from '../metrics/metrics.ts';
import type { Host } from './host.ts';

/** One declared owned type: its cache, update method and loom's policies (wave, readyWhen, …). */
export interface ManagedType {
  rule: { updateStrategy: { method: UpdateMethod } } & ChildPolicies;
  type: ResourceType;
  store: ReadonlyObjectStore;
}

/** What managing owned objects needs from a controller. */
export interface ChildManager {
  host: Host;
  labels: ControllerLabels;
  /** What loom applied, so unchanged objects are not applied again. */
  records: AppliedRecords;
  logger: Logger;
  types: readonly ManagedType[];
  /**
   * Why an object holding a desired name that a create found taken cannot be the owner's, or
   * `undefined` when it is (see `core/taken-name.ts`): a child, or an attachment, by its own rules.
   */
  whyNotOurs: (existing: KubeObject) => string | undefined;
  /** A child released by policy that the answer names again, to take back (`core/taken-name.ts`); none for a decorator. */
  reclaim?: ((existing: KubeObject) => KubeObject | undefined) | undefined;
  /** Asked before each write: why the answer has gone stale, so no further write is started (`apply/plan-stopped.ts`). */
  stopIf?: (() => string | undefined) | undefined;
  /** Judges children's readiness, for their order and the report; default kstatus's rules. */
  judge?: ReadinessJudge | undefined;
  /** Report readiness even when no child asks for order (`spec.readyCondition`). */
  reportReadiness?: boolean | undefined;
  /** Ends readiness judging early (expressions) when the controller stops. */
  signal?: AbortSignal | undefined;
  /** The children's lifecycle policies (`child-policies.ts`); absent: unwanted objects are deleted, immutable changes fail. */
  policies?: PlanPolicies | undefined;
  /**
   * A DecoratorController's attachments: their `loom.dev/*` order annotations mean nothing, so every
   * object is written at once and nothing is held or reported, exactly as under Metacontroller.
   */
  unordered?: boolean | undefined;
}

/**
 * What managing came to: the failed writes (every write is attempted, held ones aside) and, when a
 * child asks for order or `reportReadiness` is set, the report the parent's Ready condition is made of.
 */
export interface ManagedChildren {
  failures: Error[];
  report?: ChildrenReport | undefined;
}

/** An answer whose children cannot be ordered: nothing is written, and the sync fails saying why. */
export class ChildOrderError extends Error {
  override readonly name = 'ChildOrderError';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`the children's order is refused, nothing was written: ${problems.join('; ')}`);
    this.problems = problems;
  }
}

/**
 * Desired objects loom applied moments ago that its cache has not seen yet: applying them again
 * would be a wasted write. Only an object absent from its type's whole cache counts — one that is
 * cached but not observed as ours (released, say) is created as usual, which its taken name refuses
 * with an error saying why. Once the watch delivers it, it is compared as usual; if it is deleted,
 * its record goes with it.
 */
function awaitingCache(manager: ChildManager, desired: KubeObject): boolean {
  const store = manager.types.find((t) => t.type.apiVersion === desired.apiVersion && t.type.kind === desired.kind)?.store;
  if (!store || store.get(objectKey(desired.metadata.namespace, desired.metadata.name ?? ''))) return false;
  return manager.records.get(childKey(childRefOf(desired)))?.hash === fingerprintOf(desired);
}

function typeOf(manager: ChildManager, apiVersion: string, kind: string): ManagedType | undefined {
  return manager.types.find((t) => t.type.apiVersion === apiVersion && t.type.kind === kind);
}

/** The inputs of ordering: the declared kinds, and each child's type rule. */
function orderInput(manager: ChildManager, children: readonly KubeObject[]) {
  return { desired: children, declared: manager.types.map((t) => t.type), ruleOf: (obj: KubeObject) => typeOf(manager, obj.apiVersion, obj.kind)?.rule };
}

/** Counts the writes that landed; returns the failures. */
function tally(manager: ChildManager, outcomes: readonly ChildOutcome[]): Error[] {
  for (const outcome of outcomes) if (outcome.wrote && !outcome.error) manager.host.metrics.applied(manager.labels, outcome.action);
  return outcomes.flatMap((outcome) => (outcome.error ? [outcome.error] : []));
}

/** What the plan needs, bar the decisions and the writer. */
function executeOptions(manager: ChildManager, observed: readonly KubeObject[]) {
  const { applyStrategy, fieldManager } = manager.host.settings;
  const byRef = new Map(observed.map((child) => [childKey(childRefOf(child)), child]));
  return {
    fieldManager, applyStrategy, records: manager.records, logger: manager.logger,
    observedOf: (ref: ChildRef) => byRef.get(childKey(ref)), whyNotOurs: manager.whyNotOurs, reclaim: manager.reclaim, stopIf: manager.stopIf,
  };
}

/** The desired children awaiting the cache, by order key, with their key in the applied records. */
function awaitingOf(manager: ChildManager, allDesired: readonly KubeObject[]): Map<string, string> {
  if (manager.host.settings.applyStrategy !== 'server-side-apply') return new Map();
  const awaiting = allDesired.filter((d) => awaitingCache(manager, d)).map(childRefOf);
  return new Map(awaiting.map((ref) => [orderKeyOf(ref), childKey(ref)]));
}

/** Keeps the verdict of a write's answer with its applied record, while the record is of that answer. */
function rememberVerdict(records: AppliedRecords, object: KubeObject, readiness: Readiness): void {
  const key = childKey(childRefOf(object));
  const record = records.get(key);
  if (record && record.uid === object.metadata.uid && record.resourceVersion === object.metadata.resourceVersion) records.set(key, { ...record, readiness });
}

/** The decisions of one sync (docs/concepts.md, "Applying children"), bar the children awaiting the cache. */
async function planFor(manager: ChildManager, allDesired: KubeObject[], observed: KubeObject[], awaiting: ReadonlyMap<string, string>): Promise<ChildDecision[]> {
  const { applyStrategy, fieldManager } = manager.host.settings;
  const desired = allDesired.filter((d) => !awaiting.has(orderKeyOf(childRefOf(d))));
  const methodFor = (apiVersion: string, kind: string) => typeOf(manager, apiVersion, kind)?.rule.updateStrategy.method ?? 'OnDelete';
  return inTurns(planChildrenInSlices({
    desired, observed, methodFor, applyStrategy, fieldManager, lastApplied: (child) => manager.records.get(childKey(childRefOf(child))),
    policies: manager.policies,
  }, SLICE_CHILDREN));
}

/**
 * Converges `observed` to `allDesired`. Children that ask for no order (and every attachment, `unordered`)
 * are written all at once, as Metacontroller writes them; otherwise in order (`sync/ordered-writes.ts`), and
 * what is held is reported.
 */
export async function manageChildren(manager: ChildManager, allDesired: KubeObject[], observed: KubeObject[]): Promise<ManagedChildren> {
  if (manager.unordered) {
    const decisions = await planFor(manager, allDesired, observed, awaitingOf(manager, allDesired));
    return { failures: tally(manager, await executePlan({ ...executeOptions(manager, observed), decisions, writer: manager.host.writer })) };
  }
  const ordering = childOrderOf(orderInput(manager, allDesired));
  if (!ordering.ok) {
    const error = new ChildOrderError(ordering.problems);
    return { failures: [error], report: { ordered: true, children: [], held: [], failed: [error.message], invalidOrder: ordering.problems } };
  }
  const awaiting = awaitingOf(manager, allDesired);
  const decisions = await planFor(manager, allDesired, observed, awaiting);
  const options = executeOptions(manager, observed);
  const removals = removalOrderOf(orderInput(manager, goingChildren(decisions, observed, ordering.order)));
  // Keyed on the rules and the desired order, not on going children: the Ready condition stays put.
  const ordered = ordersChildren(manager.types.map((t) => t.rule), ordering.order);
  if (!ordered && !removals.ordered && !manager.reportReadiness) {
    return { failures: tally(manager, await executePlan({ ...options, decisions, writer: manager.host.writer })) };
  }
  return inOrder(manager, { order: ordering.order, ordered, removals, decisions, observed, options, awaiting });
}

/** A planned sync whose writes go in order. */
interface OrderedPlan {
  order: ChildOrder;
  /** Whether the children are in order, so the report asks for the Ready condition (`ordersChildren`). */
  ordered: boolean;
  removals: ChildOrder;
  decisions: ChildDecision[];
  observed: KubeObject[];
  options: ReturnType<typeof executeOptions>;
  awaiting: ReadonlyMap<string, string>;
}

/** The writes of an ordered (or reported) sync. */
async function inOrder(manager: ChildManager, plan: OrderedPlan): Promise<ManagedChildren> {
  const { order, removals, decisions, observed, options, awaiting } = plan;
  const { records } = manager;
  const keyOf = (obj: KubeObject) => orderKeyOf(childRefOf(obj));
  const recording = recordingWriter(manager.host.writer, keyOf);
  const judge = manager.judge ?? kstatusJudge;
  const signal = manager.signal ?? new AbortController().signal;
  const written = await writeInOrder({
    order, decisions, writtenOf: recording.writtenOf, removals,
    observed: new Map(observed.map((obj) => [keyOf(obj), obj])),
    execute: (round) => executePlan({ ...options, decisions: round, writer: recording.writer }),
    judge: (objects) => judge.judge(objects, signal),
    // Written moments ago, not in the cache yet: judged by its last answer, so Ready does not flap.
    lastAnswerOf: (key) => {
      const recordKey = awaiting.get(key);
      return recordKey === undefined ? undefined : records.get(recordKey)?.readiness;
    },
    answered: (object, readiness) => rememberVerdict(records, object, readiness),
  });
  const failures = tally(manager, written.outcomes);
  const failed = failures.map((f) => boundedJoin(errorChain(f), ': '));
  return { failures, report: { ordered: plan.ordered, children: written.children, held: written.held, failed } };
}
