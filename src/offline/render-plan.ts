/**
 * The plan `loom render --observed` prints: loom's own per-child decisions (`planChildren`: create,
 * update by the type's update method, delete, unchanged), each described for a person, with a
 * field-level diff for every child whose content would change (or would, but for `OnDelete`).
 *
 * Whether an existing child changes:
 * - `--apply-strategy=dynamic-apply`: exactly loom's 3-way merge with the last-applied annotation.
 * - server-side apply (the default): loom applies and the API server merges. Offline there is no
 *   field ownership to go by, so the desired fields are merged onto the observed child (a dynamic
 *   merge without a last-applied base) and the child changes when that differs from it. Fields loom
 *   applied before and the hook no longer returns would be removed by the API server; render cannot
 *   see those. A dynamic-apply annotation left on the child is dropped, as loom does.
 * Rolling methods are planned like their plain counterparts (RollingInPlace as InPlace): loom would
 * move one child at a time with status checks, which render does not simulate.
 */
import { jsonEqual, LAST_APPLIED_ANNOTATION, objectKey, type Json, type KubeObject } from '../api/index.ts';
import {
  childRefOf, dynamicApplyMerge, fingerprintOf, planChildren, threeWayMerge,
  type AppliedRecord, type ApplyStrategy, type ChildDecision, type ChildRef, type PlanPolicies, type UpdateMethod,
} from '../core/index.ts';
import { diffPaths } from './render-diff.ts';

/** loom's default field manager: render judges a takeover of observed children's fields as `loom run` would by default. */
const RENDER_FIELD_MANAGER = 'loom';

/** One line of the plan. */
export interface PlanEntry {
  /** `ConfigMap default/web`. */
  child: string;
  /** `create`, `delete`, `release`, `unchanged`, `update (InPlace)`, `recreate (Recreate)`, `left alone (OnDelete)`, `left alone (terminating)`, `left alone (retain)`. */
  action: string;
  /** What would change, for updates, recreates and children left alone by OnDelete. */
  diff?: string[];
  /** The API server's refusal of the dry-run apply (validation or admission): the write would fail. */
  refused?: string;
}

/** A dry-run apply's answer: what the API server would store, or why it would refuse. */
export type DryRunAnswer = { result: KubeObject } | { refused: string };
/**
 * A server-side dry run of loom's write of one desired object. `create`: a child loom has not claimed,
 * which loom only creates (never writes over a namesake), so an existing object of that name is a
 * refusal, as it is for `loom run`.
 */
export type DryRunApply = (desired: KubeObject, create: boolean) => Promise<DryRunAnswer>;
/** Dry-run answers by child ({@link childId}). */
export type DryRuns = ReadonlyMap<string, DryRunAnswer>;

/** What {@link renderPlan} needs. */
export interface RenderPlanInput {
  /** Validated and completed, as loom applies them. */
  desired: readonly KubeObject[];
  /** The claimed (and adopted) children. */
  observed: readonly KubeObject[];
  methodFor: (apiVersion: string, kind: string) => UpdateMethod;
  applyStrategy: ApplyStrategy;
  /** Server-side dry runs of the applies (server-side apply only); absent: judged offline. */
  dryRuns?: DryRuns | undefined;
  /** The children's lifecycle policies, as loom's plan follows them. */
  policies?: PlanPolicies | undefined;
}

/** The identity of a child in a plan: apiVersion, kind, namespace and name. */
export function childId(ref: ChildRef): string {
  return JSON.stringify([ref.apiVersion, ref.kind, ref.namespace, ref.name]);
}

function describe(ref: ChildRef): string {
  return `${ref.kind} ${objectKey(ref.namespace || undefined, ref.name)}`;
}

/** What a server-side apply of `desired` makes of `observed`, as far as render can tell (module comment). */
function appliedResult(observed: KubeObject, desired: KubeObject): KubeObject {
  const merged = threeWayMerge(observed as unknown as Json, {}, desired as unknown as Json) as unknown as KubeObject;
  const annotations = merged.metadata.annotations;
  if (annotations && Object.hasOwn(annotations, LAST_APPLIED_ANNOTATION)) delete annotations[LAST_APPLIED_ANNOTATION];
  return merged;
}

function resultOf(observed: KubeObject, desired: KubeObject, strategy: ApplyStrategy): KubeObject {
  return strategy === 'dynamic-apply' ? dynamicApplyMerge(observed, desired).object : appliedResult(observed, desired);
}

/** `obj` without what the API server keeps for itself on every write, which says nothing about a change. */
function stored(obj: KubeObject): KubeObject {
  const { managedFields: _m, resourceVersion: _r, generation: _g, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** What the apply of `want` makes of `have`: the dry run's answer when there is one, else judged offline. */
function applied(have: KubeObject, want: KubeObject, dryRun: DryRunAnswer | undefined, strategy: ApplyStrategy): KubeObject {
  return dryRun && 'result' in dryRun ? dryRun.result : resultOf(have, want, strategy);
}

/**
 * What the API server would answer to loom's write of `want` (the object an ordered sync judges):
 * the dry run's answer when there is one, else what the write makes of the observed child `have`
 * (see the module comment), else `want` itself.
 */
export function answerOf(want: KubeObject, have: KubeObject | undefined, dryRun: DryRunAnswer | undefined, strategy: ApplyStrategy): KubeObject {
  const answer = dryRun && 'result' in dryRun ? dryRun.result : have ? resultOf(have, want, strategy) : want;
  // A write gives the object a version of its own, which neither a dry run nor a render knows: the
  // observed one left on it would pass for the observed object (readyWhen verdicts are kept per version).
  const { resourceVersion: _r, ...metadata } = answer.metadata;
  return { ...answer, metadata };
}

/**
 * A record vouching for `observed` exactly as it is, so `planChildren` finds it up to date. loom keeps
 * such records for what it applied; render vouches for a child the apply would not change. The
 * observed file may lack uid and resourceVersion: the record then matches their absence.
 */
function vouchFor(observed: KubeObject, desired: KubeObject): AppliedRecord {
  return { uid: observed.metadata.uid, resourceVersion: observed.metadata.resourceVersion, hash: fingerprintOf(desired) };
}

function actionOf(decision: ChildDecision, method: UpdateMethod): string {
  switch (decision.action) {
    case 'update':
      return `update (${method})`;
    case 'recreate':
      return `recreate (${method})`;
    case 'skip':
      return `left alone (${decision.reason === 'on-delete' ? method : decision.reason})`;
    default:
      return decision.action;
  }
}

/**
 * loom's decisions for the children (`planChildren`), an existing child found unchanged as the module
 * comment says: what a sync would write, which the order of the writes is stepped through with.
 */
export function planDecisions(input: RenderPlanInput): ChildDecision[] {
  const { applyStrategy } = input;
  const desired = new Map(input.desired.map((obj) => [childId(childRefOf(obj)), obj]));
  const lastApplied = (have: KubeObject): AppliedRecord | undefined => {
    const want = desired.get(childId(childRefOf(have)));
    if (!want) return undefined;
    const dryRun = input.dryRuns?.get(childId(childRefOf(have)));
    const unchanged = dryRun && 'result' in dryRun ? jsonEqual(stored(dryRun.result), stored(have)) : jsonEqual(appliedResult(have, want), have);
    return unchanged ? vouchFor(have, want) : undefined;
  };
  return planChildren({
    desired: input.desired, observed: input.observed, methodFor: input.methodFor, applyStrategy, fieldManager: RENDER_FIELD_MANAGER, policies: input.policies,
    ...(applyStrategy === 'server-side-apply' ? { lastApplied } : {}),
  });
}

/** One entry per decision of {@link planDecisions}, in loom's order (deletions first, then the desired children in order). */
export function renderPlan(input: RenderPlanInput, decisions = planDecisions(input)): PlanEntry[] {
  const desired = new Map(input.desired.map((obj) => [childId(childRefOf(obj)), obj]));
  const observed = new Map(input.observed.map((obj) => [childId(childRefOf(obj)), obj]));
  return decisions.map((decision) => {
    const id = childId(decision.child);
    return entryOf(decision, input, { have: observed.get(id), want: desired.get(id), dryRun: input.dryRuns?.get(id) });
  });
}

/** The plan line of one decision, with its diff and, when the dry run was refused, why. */
function entryOf(decision: ChildDecision, input: RenderPlanInput, child: { have?: KubeObject | undefined; want?: KubeObject | undefined; dryRun?: DryRunAnswer | undefined }): PlanEntry {
  const { have, want, dryRun } = child;
  const ref = decision.child;
  const entry: PlanEntry = { child: describe(ref), action: actionOf(decision, input.methodFor(ref.apiVersion, ref.kind)) };
  if (changes(decision) && have && want) entry.diff = diffPaths(stored(have), stored(applied(have, want, dryRun, input.applyStrategy)));
  if (writes(decision) && dryRun && 'refused' in dryRun) entry.refused = dryRun.refused;
  return entry;
}

/** Whether the decision changes the child (or would, were it not left alone by OnDelete). */
function changes(decision: ChildDecision): boolean {
  return decision.action === 'update' || decision.action === 'recreate' || (decision.action === 'skip' && decision.reason === 'on-delete');
}

/** Whether the decision writes the desired child. */
function writes(decision: ChildDecision): boolean {
  return decision.action === 'create' || decision.action === 'update' || decision.action === 'recreate';
}
