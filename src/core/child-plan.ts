/**
 * Decides, per child, what one sync must do to converge observed children on desired ones
 * (docs/concepts.md, "Applying children" and "Update methods"). Pure: the plan names every call;
 * `apply/` makes them.
 *
 * Order (docs/concepts.md, "Order of child writes"): decisions about unwanted observed children come
 * first, sorted by apiVersion, kind, namespace, name so runs are reproducible; then one decision per
 * desired child, in desired order.
 *
 * Rolling methods act like their plain counterparts here (`RollingRecreate` as `Recreate`,
 * `RollingInPlace` as `InPlace`). The rolling-update planner (docs/hook-protocol.md, "Rolling updates")
 * works before this one: it chooses which revision's version of each child goes into `desired`, so this
 * plan needs no revision logic.
 */
import { runToEnd } from './run-to-end.ts';
import { isTerminating, type KubeObject } from '../api/object.ts';
import { fingerprintOf, isUpToDate, type AppliedRecord } from './applied-fingerprint.ts';
import { compareStrings } from '../api/json-value.ts';
import { ownershipTakeover, type JsonPatchOperation } from './ownership-takeover.ts';
import { dynamicApplyMerge, jsonEqual, withLastApplied, withoutLastApplied } from './three-way-merge.ts';
import { inPlace, removalOf, type PlanPolicies, type RecreateOnImmutable } from './plan-policies.ts';

/** `updateStrategy.method` of a child rule; `OnDelete` when the rule sets none. */
export type UpdateMethod = 'OnDelete' | 'Recreate' | 'InPlace' | 'RollingRecreate' | 'RollingInPlace';

/** `--apply-strategy`. */
export type ApplyStrategy = 'server-side-apply' | 'dynamic-apply';

/** Identity of a child: two objects are the same child when all four match. */
export interface ChildRef {
  apiVersion: string;
  kind: string;
  /** `''` for a cluster-scoped child. */
  namespace: string;
  name: string;
}

/**
 * Create a child the parent has not claimed. The caller must create it so that an existing object of
 * that name is refused, never changed (a `POST`, or a create-only apply), and then judge the object
 * that holds the name: it may be the parent's own, seen late by the cache.
 */
export interface CreateDecision {
  action: 'create';
  child: ChildRef;
  /** To POST (dynamic-apply: carries the last-applied annotation) or apply create-only (server-side-apply). */
  object: KubeObject;
  /** Server-side-apply only: the hash to record with the applied object ({@link AppliedRecord}). */
  fingerprint?: string;
}

/** Delete an observed child nobody wants any more. */
export interface DeleteDecision {
  action: 'delete';
  child: ChildRef;
  /** For the delete's UID precondition, so a namesake created since is never deleted. */
  uid: string | undefined;
}

/**
 * Release an observed child nobody wants any more, by its `deletionPolicy` (`child-lifecycle.ts`): PUT
 * `object`, the child without the parent's owner reference and marked released (`policy-release.ts`);
 * it carries observed's resourceVersion.
 */
export interface ReleaseDecision {
  action: 'release';
  child: ChildRef;
  object: KubeObject;
}

/** Dynamic-apply update: PUT the merged object (it carries observed's resourceVersion). */
export interface MergedUpdateDecision {
  action: 'update';
  strategy: 'dynamic-apply';
  child: ChildRef;
  object: KubeObject;
  recreateIfImmutable?: RecreateOnImmutable | undefined;
  /**
   * True when the merge changes nothing but the last-applied annotation: the child holds what desired
   * asks, and only lacks the record (server-side apply wrote it, Metacontroller's or loom's).
   */
  recordOnly: boolean;
}

/** Server-side-apply update: apply desired with `force`. */
export interface ApplyUpdateDecision {
  action: 'update';
  strategy: 'server-side-apply';
  child: ChildRef;
  object: KubeObject;
  /** The hash to record with the applied object. */
  fingerprint: string;
  recreateIfImmutable?: RecreateOnImmutable | undefined;
  /**
   * A JSON patch to run first when another writer's entries (Metacontroller's, or loom's own dynamic
   * apply's) still own fields of the child, or it still carries the last-applied annotation: see
   * {@link ownershipTakeover}.
   */
  takeOver: JsonPatchOperation[] | undefined;
}

/**
 * Delete an out-of-date child now (UID precondition, background propagation); it is created again by a
 * later sync. The caller must first check, in either apply strategy, that `desired` passes a dry-run
 * create, and keep the child when it does not: an invalid desired state never deletes anything. In
 * server-side-apply mode the decision only means "the apply record does not vouch for it", so the caller
 * first dry-run applies `desired` and keeps the child when the result equals observed (docs/concepts.md,
 * "Update methods").
 */
export interface RecreateDecision {
  action: 'recreate';
  child: ChildRef;
  uid: string | undefined;
  desired: KubeObject;
  /**
   * Server-side apply only: the takeover to run before the dry run, as for an update
   * ({@link ApplyUpdateDecision.takeOver}). Without it the dry run keeps a field desired dropped, as
   * another writer's entry still owns it, and finds nothing to recreate.
   */
  takeOver?: JsonPatchOperation[] | undefined;
}

/** Nothing to do: the child already is what desired asks for. */
export interface UnchangedDecision {
  action: 'unchanged';
  child: ChildRef;
}

/**
 * Leave the child alone: it is being deleted (`terminating`), or it differs but its method is
 * `OnDelete`, which never touches existing children (`on-delete`), or it is not desired any more and
 * its `deletionPolicy` is `Retain` (`retain`).
 */
export interface SkipDecision {
  action: 'skip';
  child: ChildRef;
  reason: 'terminating' | 'on-delete' | 'retain';
}

export type { PlanPolicies, RecreateOnImmutable };

/** What to do about one child. */
export type ChildDecision =
  | CreateDecision
  | DeleteDecision
  | ReleaseDecision
  | MergedUpdateDecision
  | ApplyUpdateDecision
  | RecreateDecision
  | UnchangedDecision
  | SkipDecision;

/** What `planChildren` needs. */
export interface PlanChildrenInput {
  /** Validated and completed by the caller: namespace set, controller ownerRef present. */
  desired: readonly KubeObject[];
  /** The children the parent has claimed. */
  observed: readonly KubeObject[];
  /** The update method of a child type's rule. */
  methodFor: (apiVersion: string, kind: string) => UpdateMethod;
  applyStrategy: ApplyStrategy;
  /** Server-side-apply only: loom's record of its last apply of this child, if it has one. */
  lastApplied?: (observed: KubeObject) => AppliedRecord | undefined;
  /** Server-side-apply only: loom's field manager, whose `Apply` entry takes over other writers' fields. */
  fieldManager: string;
  /** The children's lifecycle policies; without them every unwanted child is deleted and an immutable change fails. */
  policies?: PlanPolicies | undefined;
}

/** The identity of `obj`. */
export function childRefOf(obj: KubeObject): ChildRef {
  const { namespace = '', name = '' } = obj.metadata;
  return { apiVersion: obj.apiVersion, kind: obj.kind, namespace, name };
}

function identityOf(obj: KubeObject): string {
  const ref = childRefOf(obj);
  return JSON.stringify([ref.apiVersion, ref.kind, ref.namespace, ref.name]);
}

/** Objects by identity, in first-seen order; a later duplicate replaces the earlier one's content. */
function byIdentity(objects: readonly KubeObject[]): Map<string, KubeObject> {
  return new Map(objects.map((obj) => [identityOf(obj), obj]));
}

function compareRefs(a: ChildRef, b: ChildRef): number {
  return (
    compareStrings(a.apiVersion, b.apiVersion) ||
    compareStrings(a.kind, b.kind) ||
    compareStrings(a.namespace, b.namespace) ||
    compareStrings(a.name, b.name)
  );
}

function createOf(desired: KubeObject, strategy: ApplyStrategy): CreateDecision {
  const child = childRefOf(desired);
  if (strategy === 'dynamic-apply') return { action: 'create', child, object: withLastApplied(desired) };
  return { action: 'create', child, object: desired, fingerprint: fingerprintOf(desired) };
}

/** The in-place update for a changed child, or `undefined` when the child is already up to date. */
type UpdateIfChanged = MergedUpdateDecision | ApplyUpdateDecision | undefined;

function mergedUpdateOf(observed: KubeObject, desired: KubeObject): UpdateIfChanged {
  const { object, changed } = dynamicApplyMerge(observed, desired);
  if (!changed) return undefined;
  const recordOnly = jsonEqual(withoutLastApplied(object), withoutLastApplied(observed));
  return { action: 'update', strategy: 'dynamic-apply', child: childRefOf(desired), object, recordOnly };
}

/**
 * Recreate's decision. A child that differs only by lacking the record is updated in place instead:
 * recreating it would change nothing of it, and would recreate every such child when loom switches
 * to dynamic apply, from Metacontroller's server-side apply or its own.
 */
function recreateOf(observed: KubeObject, desired: KubeObject, update: MergedUpdateDecision | ApplyUpdateDecision): ChildDecision {
  if (update.strategy === 'dynamic-apply') {
    return update.recordOnly ? update : { action: 'recreate', child: update.child, uid: observed.metadata.uid, desired };
  }
  return { action: 'recreate', child: update.child, uid: observed.metadata.uid, desired, takeOver: update.takeOver };
}

function applyUpdateOf(observed: KubeObject, desired: KubeObject, input: PlanChildrenInput): UpdateIfChanged {
  const fingerprint = fingerprintOf(desired);
  if (isUpToDate(input.lastApplied?.(observed), observed, fingerprint)) return undefined;
  const takeOver = ownershipTakeover(observed, input.fieldManager);
  return { action: 'update', strategy: 'server-side-apply', child: childRefOf(desired), object: desired, fingerprint, takeOver };
}

/** Rolling methods behave like their plain counterparts once a child is due (see module comment). */
const BASE_METHOD: Record<UpdateMethod, 'OnDelete' | 'Recreate' | 'InPlace'> = {
  OnDelete: 'OnDelete',
  Recreate: 'Recreate',
  InPlace: 'InPlace',
  RollingRecreate: 'Recreate',
  RollingInPlace: 'InPlace',
};

/**
 * An existing desired child. As in Metacontroller, "up to date" is checked first, then "terminating",
 * then the update method.
 */
function revisionOf(observed: KubeObject, desired: KubeObject, input: PlanChildrenInput): ChildDecision {
  const child = childRefOf(desired);
  const update =
    input.applyStrategy === 'dynamic-apply' ? mergedUpdateOf(observed, desired) : applyUpdateOf(observed, desired, input);
  if (!update) return { action: 'unchanged', child };
  if (isTerminating(observed)) return { action: 'skip', child, reason: 'terminating' };
  switch (BASE_METHOD[input.methodFor(desired.apiVersion, desired.kind)]) {
    case 'InPlace':
      return inPlace(observed, desired, update, input.policies);
    case 'Recreate':
      return recreateOf(observed, desired, update);
    default:
      return { action: 'skip', child, reason: 'on-delete' };
  }
}

/**
 * One decision per child (see the module comment for the order). Desired identities should be unique;
 * if one repeats, the last copy wins at the first copy's position, as in Metacontroller's child map.
 * Inputs are not modified.
 */
export function planChildren(input: PlanChildrenInput): ChildDecision[] {
  return runToEnd(planChildrenInSlices(input, Infinity));
}

/**
 * {@link planChildren} in slices of at most `size` children: the generator pauses after each slice, so
 * a caller can let the event loop turn between them (a hook may answer thousands of children, and
 * planning each costs microseconds). Returns the same decisions in the same order.
 */
export function* planChildrenInSlices(input: PlanChildrenInput, size: number): Generator<void, ChildDecision[]> {
  const desired = byIdentity(input.desired);
  const observed = byIdentity(input.observed);
  const decisions: ChildDecision[] = [...observed]
    .filter(([id]) => !desired.has(id))
    .map(([, obj]) => removalOf(obj, childRefOf(obj), input.policies))
    .sort((a, b) => compareRefs(a.child, b.child));
  let inSlice = 0;
  for (const [id, want] of desired) {
    const have = observed.get(id);
    decisions.push(have ? revisionOf(have, want, input) : createOf(want, input.applyStrategy));
    if (++inSlice >= size) {
      inSlice = 0;
      yield;
    }
  }
  return decisions;
}
