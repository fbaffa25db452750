/**
 * What one `loom render` works with, and what the offline ports of both controller kinds share: the
 * customize step over `--related`, child types resolved offline, and the plan of the owned objects.
 */
import type { ChildPolicies, Hook, KubeObject, ResourceRule, UpdateMethod } from '../api/index.ts';
import type { ApplyStrategy, ChildDecision, PlanPolicies } from '../core/index.ts';
import type { RenderRunners } from './render-hooks.ts';
import type { LoadedController } from './render-inputs.ts';
import { childRefOf } from '../core/index.ts';
import { answerOf, childId, planDecisions, renderPlan, type DryRunApply, type DryRuns, type PlanEntry } from './render-plan.ts';
import type { JudgedType } from '../sync/controller-judge.ts';
import { relatedObjects, type RelatedResult, type RelatedSource } from './render-related.ts';
import { typeFromDesired, type ResolvedType, type TypeCatalog } from './render-types.ts';

/** Everything a render needs, already read and checked. */
export interface RenderContext {
  loaded: LoadedController;
  /** The `--parent` file name, for messages. */
  parentFile: string;
  /** The parent (a decorator's target). */
  parent: KubeObject;
  /** `--observed`; absent: no plan is printed. */
  observed?: readonly KubeObject[] | undefined;
  /** `--related`; absent: none given. */
  related?: readonly KubeObject[] | undefined;
  /** Where related objects come from instead of `related` (`loom plan`: the cluster). */
  relatedSource?: RelatedSource | undefined;
  catalog: TypeCatalog;
  runners: RenderRunners;
  applyStrategy: ApplyStrategy;
  signal: AbortSignal;
  /** Things to tell the user on stderr. */
  notes: string[];
  /**
   * A server-side dry run of loom's apply of one desired object (`loom plan`, against a cluster): the
   * plan then judges changes by what the API server would store, defaulting and admission included.
   * Absent (`loom render`): judged offline.
   */
  dryRun?: DryRunApply | undefined;
}

/** The report printed as YAML; keys in print order. */
export type RenderReport = Record<string, unknown>;

/** `obj` with `finalizer` added (`present`) or removed, as loom's finalizer write leaves it. */
export function withFinalizer(obj: KubeObject, finalizer: string, present: boolean): KubeObject {
  const others = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  return { ...obj, metadata: { ...obj.metadata, finalizers: present ? [...others, finalizer] : others } };
}

/**
 * The `--parent` as loom would have it: one being deleted that lacks the finalizer of a controller with
 * a finalize hook is rendered as if it had it, as loom puts it on every parent it syncs before the
 * deletion, so the finalize hook is what would run (a note says so).
 */
export function asLoomWouldHaveIt(ctx: RenderContext, finalizer: string, hasFinalizeHook: boolean): KubeObject {
  const { parent } = ctx;
  if (!hasFinalizeHook || !parent.metadata.deletionTimestamp || parent.metadata.finalizers?.includes(finalizer)) return parent;
  ctx.notes.push(`${ctx.parentFile}: being deleted without finalizer ${finalizer}; rendered as if loom had added it before the deletion, as it would have`);
  return withFinalizer(parent, finalizer, true);
}

/** The related objects for the sync request, or `undefined` without a customize hook (`related` is then `{}`). */
export async function relatedFor(ctx: RenderContext, hook: Hook | undefined, parent: KubeObject): Promise<RelatedResult | undefined> {
  const runner = ctx.runners.customize;
  if (!hook || !runner) {
    if (ctx.related) ctx.notes.push('--related is not used: the controller has no customize hook, so its hooks get no related objects');
    return undefined;
  }
  const result = await relatedObjects({
    controller: ctx.loaded.controller.object, parent, hook, runner, catalog: ctx.catalog, signal: ctx.signal,
    source: ctx.relatedSource ?? (() => Promise.resolve(ctx.related ?? [])),
  });
  ctx.notes.push(...result.notes);
  return result;
}

/** A child-resource or attachment rule: a type and its update method. */
export type OwnedRule = ResourceRule & ChildPolicies & { updateStrategy: { method: UpdateMethod } };

/** An owned-object rule and its type, when known. */
export interface OwnedType {
  rule: OwnedRule;
  type: ResolvedType | undefined;
}

/** The known owned types for a readiness judge, each with its `readyWhen` (a decorator's attachments have none) and where it is written. */
export function judgedTypes(ctx: RenderContext, owned: readonly OwnedType[], field: string): JudgedType[] {
  return owned.flatMap(({ rule, type }, i) => {
    if (!type) return [];
    const readyWhen = 'readyWhen' in rule && typeof rule.readyWhen === 'string' ? rule.readyWhen : undefined;
    return [{ apiVersion: type.apiVersion, kind: type.kind, readyWhen, field: `${ctx.loaded.where}${field}[${i}].readyWhen` }];
  });
}

/** The rule of `obj`'s owned type, when render knows that type. */
export function ruleOf(owned: readonly OwnedType[], obj: KubeObject): OwnedRule | undefined {
  return owned.find(({ type }) => type?.apiVersion === obj.apiVersion && type.kind === obj.kind)?.rule;
}

/** A known owned type and its update method. */
export interface PlannedType {
  type: ResolvedType;
  method: UpdateMethod;
}

/** The types of the owned-object rules at `field`; an unknown one is noted and left out of the request's maps. */
export function ownedTypes(ctx: RenderContext, rules: readonly OwnedRule[], field: string): OwnedType[] {
  return rules.map((rule, i) => {
    const type = ctx.catalog.resolve(rule);
    if (!type) {
      ctx.notes.push(`${ctx.loaded.where}${field}[${i}]: the kind of ${rule.resource}.${rule.apiVersion} is unknown (no CRD with the controller, no such object given); the hook request has no entry for it`);
    }
    return { rule, type };
  });
}

/** Every owned type known once the hook answered: unknown ones filled in from its desired objects. */
export function knownTypes(owned: readonly OwnedType[], desired: readonly KubeObject[], parent: KubeObject): PlannedType[] {
  return owned.flatMap(({ rule, type }) => {
    const known = type ?? typeFromDesired(rule, desired, parent);
    return known ? [{ type: known, method: rule.updateStrategy.method }] : [];
  });
}

/**
 * Says why there is no plan when `--observed` was given but the sync wrote no child: the parent is
 * being deleted, so loom leaves its children to the garbage collector.
 */
export function noteNoPlan(ctx: RenderContext): void {
  if (ctx.observed) ctx.notes.push('no plan: the parent is being deleted, so loom leaves its children to the garbage collector');
}

/** What a sync would do to the owned objects: loom's decisions, and the plan printed when `--observed` was given. */
export interface PlannedWrites {
  decisions: ChildDecision[];
  /** Absent without `--observed`. */
  entries: PlanEntry[] | undefined;
  /** What the API server would answer to the write of a desired object (`answerOf`). */
  answerOf: (desired: KubeObject) => KubeObject;
}

/** The decisions for the owned objects loom would manage, and their plan when `--observed` was given. */
export async function planFor(ctx: RenderContext, input: { desired: readonly KubeObject[]; observed: readonly KubeObject[]; types: readonly PlannedType[]; policies?: PlanPolicies }): Promise<PlannedWrites> {
  const methodFor = (apiVersion: string, kind: string): UpdateMethod =>
    input.types.find(({ type }) => type.apiVersion === apiVersion && type.kind === kind)?.method ?? 'OnDelete';
  const dryRuns = ctx.observed && ctx.dryRun ? await dryRunAll(ctx.dryRun, input, ctx.applyStrategy) : undefined;
  const planInput = { desired: input.desired, observed: input.observed, methodFor, applyStrategy: ctx.applyStrategy, dryRuns, policies: input.policies };
  const decisions = planDecisions(planInput);
  const observed = new Map(input.observed.map((obj) => [childId(childRefOf(obj)), obj]));
  const answer = (desired: KubeObject): KubeObject => {
    const id = childId(childRefOf(desired));
    return answerOf(desired, observed.get(id), dryRuns?.get(id), ctx.applyStrategy);
  };
  return { decisions, entries: ctx.observed ? renderPlan(planInput, decisions) : undefined, answerOf: answer };
}

/**
 * The API server's answer to a dry run of each desired object loom would write, by child: with
 * server-side apply every one; with dynamic apply the creates only (whose merge render judges itself,
 * but whose name may be taken).
 */
async function dryRunAll(dryRun: DryRunApply, input: { desired: readonly KubeObject[]; observed: readonly KubeObject[] }, strategy: ApplyStrategy): Promise<DryRuns> {
  const observed = new Set(input.observed.map((obj) => childId(childRefOf(obj))));
  const written = input.desired.flatMap((obj) => {
    const id = childId(childRefOf(obj));
    const create = !observed.has(id);
    return create || strategy === 'server-side-apply' ? [{ id, obj, create }] : [];
  });
  return new Map(await Promise.all(written.map(async ({ id, obj, create }) => [id, await dryRun(obj, create)] as const)));
}
