/**
 * Carries out a child plan through the object writer. Keeps going past a failed child and reports
 * every outcome, so one bad child never blocks the others or the parent's status write.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/object.ts';
import { appliedRecordOf } from '../core/index.ts';
import type { ApplyStrategy, ChildDecision, ChildRef } from '../core/index.ts';
import { isAlreadyExists, isConflict, isInvalid, isNotFound, KubeApiError, type ObjectWriter } from '../kube/index.ts';
import { doomedBy, isDoomed, NotAttemptedError, type DoomedScope } from './doomed-writes.ts';
import { planStopper, PlanStoppedError } from './plan-stopped.ts';
import { childKey, type AppliedRecords } from './applied-records.ts';
import { objectRefOf } from './object-ref.ts';
import { checkValidAsNew, unchangedByDryRun } from './recreate-checks.ts';
import { recreateIfImmutable, releaseChild } from './policy-writes.ts';

/** What one decision came to. */
export interface ChildOutcome {
  child: ChildRef;
  action: ChildDecision['action'];
  /** Set when the call failed; the other children were still attempted. */
  error?: Error;
  /** True when the API was called. */
  wrote: boolean;
  /**
   * True when an update the API server refused for an immutable field was replaced by deleting the
   * child (`onImmutableChange: Recreate`): it is gone until a later sync creates it anew.
   */
  replaced?: true;
}

/** What executing a plan needs. */
export interface ExecutePlanOptions {
  decisions: readonly ChildDecision[];
  writer: ObjectWriter;
  fieldManager: string;
  applyStrategy: ApplyStrategy;
  records: AppliedRecords;
  /** The observed child, for the dry-run comparison before a server-side-apply recreate. */
  observedOf: (child: ChildRef) => KubeObject | undefined;
  /**
   * For a create refused because the name is taken: why the object holding it cannot become this
   * owner's (a clause to follow "<Kind> <ns>/<name> already exists and …"), or `undefined` when it is
   * the owner's already and the cache was behind (see `core/taken-name.ts`).
   */
  whyNotOurs: (existing: KubeObject) => string | undefined;
  /**
   * For a create refused because the name is taken by a child this owner released by its deletion
   * policy: the object to write to take it back (`core/taken-name.ts` `reclaimedChild`), or `undefined`.
   */
  reclaim?: ((existing: KubeObject) => KubeObject | undefined) | undefined;
  logger: Logger;
  /**
   * Asked before each write: why the plan's answer has gone stale (`core/stale-answer.ts`), or `undefined`.
   * Once it gives a reason no write is started (not even a delete); each is reported with a {@link PlanStoppedError}.
   */
  stopIf?: (() => string | undefined) | undefined;
}

/** One server-side apply of a child: the object, the fingerprint to record, and whether it may only create. */
interface ChildApply {
  child: ChildRef;
  object: KubeObject;
  fingerprint: string;
  createOnly?: boolean;
}

async function applyAndRecord(options: ExecutePlanOptions, { child, object, fingerprint, createOnly = false }: ChildApply): Promise<void> {
  const applied = await options.writer.apply(object, { fieldManager: options.fieldManager, createOnly });
  const record = appliedRecordOf(applied, fingerprint);
  if (record) options.records.set(childKey(child), record);
}

function describeChild(child: ChildRef): string {
  return `${child.kind} ${child.namespace ? `${child.namespace}/` : ''}${child.name}`;
}

/**
 * After a create the API server refused because the name is taken (one uncached read): takes back a
 * child this owner released that the answer names again (one write, resolving true); returns quietly
 * when the object is ours and the cache was just behind, as its watch event brings the next sync;
 * otherwise throws, saying whose it is, so the sync fails with a SyncError naming it.
 */
async function judgeTakenName(options: ExecutePlanOptions, child: ChildRef, refusal: unknown): Promise<boolean> {
  const existing = await options.writer.get(objectRefOf(child));
  if (!existing) {
    // Deleted between the create and the read: the failed sync is retried, and creates it then.
    throw new Error(`${describeChild(child)} existed at the create and was gone at the read that followed`, { cause: refusal });
  }
  const reclaimed = options.reclaim?.(existing);
  if (reclaimed) {
    await options.writer.replace(reclaimed);
    return true;
  }
  const reason = options.whyNotOurs(existing);
  if (reason !== undefined) throw new Error(`${describeChild(child)} already exists and ${reason}`, { cause: refusal });
  return false;
}

/**
 * Creates a child loom has not observed so that an existing object of that name is never changed, as
 * Metacontroller's `POST` does: with dynamic apply a `POST`, with server-side apply a create-only
 * apply, which keeps the fields owned by an `Apply` entry that later applies can prune (a `POST`
 * would leave them to an `Update` entry that no apply ever removes). Resolves whether it wrote.
 */
async function create(options: ExecutePlanOptions, decision: Extract<ChildDecision, { action: 'create' }>): Promise<boolean> {
  try {
    const { child, object, fingerprint } = decision;
    if (fingerprint !== undefined) await applyAndRecord(options, { child, object, fingerprint, createOnly: true });
    else await options.writer.create(object);
    return true;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    return judgeTakenName(options, decision.child, err);
  }
}

/**
 * Recreate (docs/concepts.md, "Update methods"): deletes an out-of-date child, which a later sync
 * creates anew, but only once its desired state has passed a dry-run create, in both apply strategies,
 * so an invalid desired state never deletes anything. (Metacontroller dry-runs only with server-side
 * apply, an apply that refuses immutable-field changes, and deletes on 422.) With server-side apply, a
 * dry-run apply first finds the children that need nothing, after the ownership takeover the decision
 * may carry (then the takeover is the one write, and the result says so).
 */
async function recreate(options: ExecutePlanOptions, decision: Extract<ChildDecision, { action: 'recreate' }>): Promise<boolean> {
  if (options.applyStrategy === 'server-side-apply') {
    // Taken over first, so the dry run drops what desired dropped; then compared with the child as it is after that patch.
    const observed = decision.takeOver ? await takeOver(options, decision.child, decision.takeOver) : options.observedOf(decision.child);
    if (await unchangedByDryRun(options, decision, observed)) return decision.takeOver !== undefined;
  }
  await checkValidAsNew(options, decision);
  options.records.delete(childKey(decision.child));
  return options.writer.delete(objectRefOf(decision.child), { uid: decision.uid, propagationPolicy: 'Background' });
}

/**
 * Runs a takeover (`core/ownership-takeover.ts`); resolves the child as it is afterwards. Its
 * resourceVersion test fails (422) when the child changed since it was observed: the sync fails, and
 * the next one takes over from the child as it is then.
 */
async function takeOver(options: ExecutePlanOptions, child: ChildRef, operations: readonly object[]): Promise<KubeObject> {
  try {
    return await options.writer.patchJson(objectRefOf(child), operations);
  } catch (err) {
    throw new Error(`taking over the fields of ${describeChild(child)} from Metacontroller's or dynamic apply's field managers failed`
      + `${isInvalid(err) ? ' (changed since it was observed?)' : ''}`, { cause: err });
  }
}

async function update(options: ExecutePlanOptions, decision: Extract<ChildDecision, { action: 'update' }>): Promise<void> {
  if (decision.strategy === 'dynamic-apply') {
    await options.writer.replace(decision.object).catch(swallow((err) => isNotFound(err) || isConflict(err)));
    return;
  }
  // Fields another writer still owns would never be removed by the apply: hand them to loom first.
  if (decision.takeOver) await takeOver(options, decision.child, decision.takeOver);
  await applyAndRecord(options, decision);
}

/** Runs one decision; resolves whether the API was written, or `replaced` when an update became a delete. */
async function execute(options: ExecutePlanOptions, decision: ChildDecision): Promise<boolean | 'replaced'> {
  const { writer } = options;
  switch (decision.action) {
    case 'unchanged':
    case 'skip':
      return false;
    case 'delete':
      options.records.delete(childKey(decision.child));
      return writer.delete(objectRefOf(decision.child), { uid: decision.uid, propagationPolicy: 'Background' });
    case 'create':
      return create(options, decision);
    case 'release':
      return releaseChild(options, decision);
    case 'update':
      return update(options, decision).then(() => true, async (err: unknown) => {
        await recreateIfImmutable(options, decision, err);
        return 'replaced' as const;
      });
    case 'recreate':
      return recreate(options, decision);
  }
}

/**
 * NotFound/Conflict on a dynamic-apply update mean the cache was behind; the watch event that follows
 * triggers the next sync, which sees the truth. Anything else is a real failure.
 */
function swallow(expected: (err: unknown) => boolean): (err: unknown) => undefined {
  return (err) => {
    if (expected(err)) return undefined;
    throw err;
  };
}

/** Writes of one sync in flight at once: the writes of a parent's namespaced children are independent of each other. */
export const WRITES_IN_FLIGHT = 8;

/**
 * How a decision takes its turn. `none`: no API call. `alone`: after every write before it has ended,
 * and before any after it starts — a cluster-scoped write (a Namespace, a CRD) may be what later writes
 * need. `together`: beside other such writes.
 */
function turnOf(decision: ChildDecision): 'none' | 'alone' | 'together' {
  if (decision.action === 'unchanged' || decision.action === 'skip') return 'none';
  return decision.child.namespace === '' ? 'alone' : 'together';
}

/** What a run of one decision shares with the others of its plan. */
interface PlanState {
  doomed: DoomedScope[];
  /** Why the plan stopped before a write, if it has (`plan-stopped.ts`). */
  stoppedBefore: (writes: boolean) => string | undefined;
}

/** Runs one decision, or reports it not attempted (doomed by an earlier failure, or the plan stopped); records a failure that dooms others. */
async function executeOne(options: ExecutePlanOptions, decision: ChildDecision, state: PlanState): Promise<ChildOutcome> {
  const { doomed, stoppedBefore } = state;
  const { kind, namespace, name } = decision.child;
  const what = `${decision.action} ${kind} ${namespace ? `${namespace}/` : ''}${name}`;
  const stopped = stoppedBefore(turnOf(decision) !== 'none');
  if (stopped !== undefined) return { child: decision.child, action: decision.action, error: new PlanStoppedError(what, stopped), wrote: false };
  const scope = doomed.find((d) => isDoomed(d, decision));
  if (scope) return { child: decision.child, action: decision.action, error: new NotAttemptedError(`${what} not attempted`, { cause: scope.because }), wrote: false };
  try {
    const wrote = await execute(options, decision);
    if (wrote === 'replaced') return { child: decision.child, action: decision.action, wrote: true, replaced: true };
    return { child: decision.child, action: decision.action, wrote };
  } catch (cause) {
    return { child: decision.child, action: decision.action, error: failureOf(options, { decision, what, cause }, state), wrote: true };
  }
}

/** A write that threw. */
interface FailedWrite {
  decision: ChildDecision;
  what: string;
  cause: unknown;
}

/**
 * The error of a failed write, recording the writes it dooms. A write the API server never answered
 * (given up: its controller stopping aborts it) once the plan has stopped is part of the stop, not
 * a failure of the child.
 */
function failureOf(options: ExecutePlanOptions, { decision, what, cause }: FailedWrite, { doomed, stoppedBefore }: PlanState): Error {
  const stopped = cause instanceof KubeApiError ? undefined : stoppedBefore(true);
  if (stopped !== undefined) return new PlanStoppedError(what, stopped, true);
  const error = new Error(`${what} failed`, { cause });
  options.logger.warn({ err: error }, 'child write failed');
  const dooms = doomedBy(cause, error, decision);
  if (dooms) doomed.push(dooms);
  return error;
}

/**
 * Executes every decision; never throws for a single child's failure; outcomes come in the decisions'
 * order. Writes go one at a time until the first one that is not a delete has ended, then up to
 * {@link WRITES_IN_FLIGHT} at a time, except that a cluster-scoped write waits for those in flight and
 * goes alone (docs/concepts.md, "Order of child writes"). A failure that dooms later writes of the sync
 * (`doomed-writes.ts`: namespace terminating or gone, forbidden) skips those not started yet, each
 * reported as failed with the failure that doomed it. Going alone until a create or update has been
 * answered means the commonest doom, every child in one namespace that is going away, costs one
 * refused write, as when writes went one by one; a doom found later may also fail the few writes
 * already in flight beside it. A plan whose answer goes stale (`stopIf`) starts no write after that.
 */
export async function executePlan(options: ExecutePlanOptions): Promise<ChildOutcome[]> {
  const { decisions } = options;
  const outcomes: ChildOutcome[] = new Array<ChildOutcome>(decisions.length);
  const state: PlanState = { doomed: [], stoppedBefore: planStopper(options.stopIf) };
  const inFlight = new Set<Promise<void>>();
  let probed = false;
  for (const [index, decision] of decisions.entries()) {
    const turn = turnOf(decision);
    // Started only when its turn comes: `executeOne` checks for dooms, then writes.
    const run = (): Promise<void> => executeOne(options, decision, state).then((outcome) => void (outcomes[index] = outcome));
    if (turn === 'none') {
      await run();
      continue;
    }
    if (turn === 'alone' || !probed) {
      await Promise.all(inFlight);
      await run();
      probed ||= decision.action !== 'delete';
      continue;
    }
    const tracked: Promise<void> = run().finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  return outcomes;
}
