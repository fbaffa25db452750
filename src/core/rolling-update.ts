/**
 * One sync of a rolling CompositeController (docs/hook-protocol.md, "Rolling updates"; Metacontroller's
 * `syncRollingUpdate` and the second half of `syncRevisions`): given what the hook wants for each
 * revision of the parent, decides which revision each rolling child belongs to, moves at most one child
 * to the latest revision, and returns the ControllerRevision writes, the one desired child list to
 * converge on, and the parent status with its `Updated` condition.
 *
 * Children of a kind that does not roll always take the latest revision's desired state. A rolling child
 * keeps the desired state of the revision that claims it until it is moved; `planChildren` then updates
 * a moved child like `Recreate`/`InPlace`.
 */
import type { ChildResourceRule, ChildUpdateStrategy, UpdateMethod } from '../api/controller-spec.ts';
import type { ControllerRevision } from '../api/controller-revision.ts';
import type { CompositeHookResponse } from '../api/hook-wire.ts';
import type { KubeObject } from '../api/object.ts';
import type { RevisionSet } from './controller-revisions.ts';
import {
  addChild, childLookup, claimedRefs, cleanClaims, countChildren, refKey, refOf, removeChild, revisionWrites,
  type ChildLookup, type ClaimMap, type RevisionChildRef, type RevisionWrite,
} from './revision-claims.ts';
import { childUpToDate, rolloutBlocker, type UpToDateOptions } from './rollout-readiness.ts';
import { onLatestRevision, rolloutProgressing, rolloutWaiting, withUpdatedCondition, type UpdatedCondition } from './updated-condition.ts';

/** Whether `method` moves children one at a time through revisions. */
export function isRollingMethod(method: UpdateMethod | undefined): boolean {
  return method === 'RollingRecreate' || method === 'RollingInPlace';
}

/**
 * Whether a CompositeController needs ControllerRevisions at all: only when some child rule rolls
 * (Metacontroller's `anyRolling`). Otherwise the hook is called once, with the parent as it is.
 */
export function usesRollingUpdates(childResources: readonly ChildResourceRule[]): boolean {
  return childResources.some((rule) => isRollingMethod(rule.updateStrategy.method));
}

/** What {@link planRollout} needs. */
export interface RolloutInput extends UpToDateOptions {
  /** From `revisionSet`. Not modified. */
  revisions: RevisionSet;
  /**
   * The hook's answer for each revision's parent: `latest` for `revisions.latest.parent`, `historic[i]`
   * for `revisions.historic[i].parent`. `children` must already be what `planChildren` will get
   * (normalised with the current parent and, for server-side apply, sanitised), so that "up to date"
   * here means "unchanged" there.
   */
  responses: { latest: CompositeHookResponse; historic: readonly CompositeHookResponse[] };
  /** The children the parent has claimed, of every type. */
  observed: readonly KubeObject[];
  /** The child rule's strategy for a group and kind (version-less), or `undefined` for undeclared kinds. */
  strategyFor: (apiGroup: string, kind: string) => ChildUpdateStrategy | undefined;
}

/** The outcome of one rolling sync. */
export interface RolloutPlan {
  /** To make in order, all before any child write; a failure fails the sync (Metacontroller does too). */
  revisionWrites: RevisionWrite[];
  /**
   * What the sync goes on with, as if one hook call had returned it: the latest revision's children with
   * each child an older revision still claims replaced by that revision's version of it; the latest
   * revision's status with the `Updated` condition; the smallest positive `resyncAfterSeconds` and the
   * AND of `finalized` over the revisions that remain.
   */
  response: CompositeHookResponse;
  condition: UpdatedCondition;
  /** The child moved to the latest revision by this sync, if any. */
  moved?: RevisionChildRef;
}

/** A revision during planning: a private copy and what its hook call wants. */
interface Working {
  revision: ControllerRevision;
  response: CompositeHookResponse;
  desired: ChildLookup;
}

interface Planning extends RolloutInput {
  latest: Working;
  historic: Working[];
  claims: ClaimMap;
  observedChild: ChildLookup;
  rolling: (ref: RevisionChildRef) => boolean;
}

function working(revision: ControllerRevision, response: CompositeHookResponse | undefined): Working {
  if (!response) throw new RangeError(`no hook response for ControllerRevision ${revision.metadata.name}`);
  return { revision: structuredClone(revision), response, desired: childLookup(response.children) };
}

function moveToLatest(plan: Planning, ref: RevisionChildRef, from: readonly Working[]): void {
  addChild(plan.latest.revision, ref);
  for (const old of from) removeChild(old.revision, ref);
  plan.claims.set(refKey(ref), plan.latest.revision);
}

/**
 * Step 4: a rolling child nobody claims goes to the latest revision (so a new child is created with the
 * latest state); a child an older revision claims moves at once when the latest state would not change
 * it — that also keeps the sync from being a no-op that nothing would ever trigger again.
 */
function claimForLatest(plan: Planning): void {
  for (const child of plan.latest.response.children) {
    const ref = refOf(child);
    if (!plan.rolling(ref)) continue;
    const owner = plan.claims.get(refKey(ref));
    if (owner === plan.latest.revision) continue;
    const observed = plan.observedChild(ref);
    const noOp = observed !== undefined && childUpToDate(observed, child, plan);
    if (!owner || noOp) moveToLatest(plan, ref, plan.historic.filter((w) => w.revision === owner));
  }
}

/**
 * Step 5: the first rolling child, in the latest hook response's order, that is not on the latest
 * revision moves to it — if every child already there is ready (`rolloutBlocker`); else nothing moves.
 */
function advance(plan: Planning): { condition: UpdatedCondition; moved?: RevisionChildRef } {
  const { latest } = plan;
  for (const child of latest.response.children) {
    const ref = refOf(child);
    if (!plan.rolling(ref) || plan.claims.get(refKey(ref)) === latest.revision) continue;
    const blocker = rolloutBlocker({
      ...plan, children: latest.revision.children ?? [], observed: plan.observedChild, desired: latest.desired,
    });
    if (blocker !== undefined) return { condition: rolloutWaiting(blocker) };
    moveToLatest(plan, ref, plan.historic);
    return { condition: rolloutProgressing(child.kind, ref.name), moved: ref };
  }
  return { condition: onLatestRevision(latest.revision.metadata.name ?? '') };
}

function exactKey(obj: KubeObject): string {
  return JSON.stringify([obj.apiVersion, obj.kind, obj.metadata.name ?? '']);
}

/**
 * Step 7: the latest revision's children, in its order, with every child an older revision still claims
 * replaced by that revision's version — only where the latest also wants that apiVersion, kind and name
 * (Metacontroller's `ReplaceObjectIfExists`).
 */
function desiredChildren(latest: Working, kept: readonly Working[]): KubeObject[] {
  const children = latest.response.children.map((c) => structuredClone(c));
  const position = new Map(children.map((c, i) => [exactKey(c), i]));
  for (const old of kept) {
    const versions = claimedRefs(old.revision).map(old.desired).filter((c) => c !== undefined);
    for (const version of versions) {
      const at = position.get(exactKey(version));
      if (at !== undefined) children[at] = structuredClone(version);
    }
  }
  return children;
}

function smallestPositive(values: readonly number[]): number {
  return values.filter((v) => v > 0).reduce((min, v) => (min === 0 || v < min ? v : min), 0);
}

function combined(latest: Working, kept: readonly Working[], condition: UpdatedCondition): CompositeHookResponse {
  const all = [latest, ...kept];
  return {
    status: withUpdatedCondition(latest.response.status, condition),
    children: desiredChildren(latest, kept),
    resyncAfterSeconds: smallestPositive(all.map((w) => w.response.resyncAfterSeconds)),
    finalized: all.every((w) => w.response.finalized),
  };
}

/**
 * Steps 3–7 of a rolling sync, after the hook has answered for every revision (see {@link RolloutInput}).
 * Inputs are not modified.
 * @throws RangeError when `responses.historic` does not match `revisions.historic`.
 * @throws StatusConditionsError when the latest hook status has a `conditions` field that is not a list.
 */
export function planRollout(input: RolloutInput): RolloutPlan {
  const { revisions, responses } = input;
  if (responses.historic.length !== revisions.historic.length) {
    throw new RangeError(`${revisions.historic.length} historic revisions but ${responses.historic.length} hook responses for them`);
  }
  const latest = working(revisions.latest.revision, responses.latest);
  const historic = revisions.historic.map((r, i) => working(r.revision, responses.historic[i]));
  const rolling = (ref: RevisionChildRef): boolean => isRollingMethod(input.strategyFor(ref.apiGroup, ref.kind)?.method);
  // Step 3: keep claims of rolling kinds the latest still wants; the latest wins a doubly claimed child.
  const claims = cleanClaims([latest, ...historic].map((w) => w.revision), (ref) => rolling(ref) && latest.desired(ref) !== undefined);
  const plan: Planning = { ...input, latest, historic, claims, observedChild: childLookup(input.observed), rolling };
  claimForLatest(plan);
  const { condition, moved } = advance(plan);
  // Step 6: old revisions no child belongs to any more are forgotten (there is no rollback).
  const kept = historic.filter((w) => countChildren(w.revision) > 0);
  return {
    revisionWrites: revisionWrites(revisions.observed, [latest, ...kept].map((w) => w.revision)),
    response: combined(latest, kept, condition),
    condition,
    ...(moved ? { moved } : {}),
  };
}
