/**
 * What one `loom render` works with, and the steps both controller kinds share: the finalizer lifecycle
 * before the hook (docs/concepts.md, "Finalizers"), the customize step, child types resolved offline,
 * and the plan of the owned objects.
 */
import type { Hook, KubeObject, ResourceRule, UpdateMethod } from '../api/index.ts';
import { afterFinalize, decideLifecycle, type ApplyStrategy, type LifecycleDecision } from '../core/index.ts';
import type { RenderRunners } from './render-hooks.ts';
import type { LoadedController } from './render-inputs.ts';
import { renderPlan, type PlanEntry } from './render-plan.ts';
import { relatedObjects, type RelatedResult } from './render-related.ts';
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
  catalog: TypeCatalog;
  runners: RenderRunners;
  applyStrategy: ApplyStrategy;
  signal: AbortSignal;
  /** Things to tell the user on stderr. */
  notes: string[];
}

/** The report printed as YAML; keys in print order. */
export type RenderReport = Record<string, unknown>;

/** The lifecycle decision and the parent as the hook sees it (finalizer added or removed first). */
export interface Lifecycle {
  decision: LifecycleDecision;
  parent: KubeObject;
  /** `add <finalizer>` or `remove <finalizer>` when loom changes the finalizer before the hook. */
  finalizerChange?: string | undefined;
}

function withFinalizer(parent: KubeObject, finalizer: string, add: boolean): KubeObject {
  const others = (parent.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  return { ...parent, metadata: { ...parent.metadata, finalizers: add ? [...others, finalizer] : others } };
}

/**
 * loom's lifecycle decision for the parent. A parent being deleted that lacks the finalizer of a
 * controller with a finalize hook is rendered as if it had it: loom puts it on every parent it syncs
 * before deletion, so the finalize hook is what would run (a note says so).
 */
export function lifecycleOf(ctx: RenderContext, input: { finalizer: string; finalizeHook: Hook | undefined; matches: boolean }): Lifecycle {
  let parent = ctx.parent;
  const hasFinalizeHook = input.finalizeHook !== undefined;
  if (hasFinalizeHook && parent.metadata.deletionTimestamp && !parent.metadata.finalizers?.includes(input.finalizer)) {
    parent = withFinalizer(parent, input.finalizer, true);
    ctx.notes.push(`${ctx.parentFile}: being deleted without finalizer ${input.finalizer}; rendered as if loom had added it before the deletion, as it would have`);
  }
  const decision = decideLifecycle({ parent, finalizer: input.finalizer, hasFinalizeHook, matchesParentSelector: input.matches });
  if (decision.finalizer === 'keep') return { decision, parent };
  const add = decision.finalizer === 'add';
  return { decision, parent: withFinalizer(parent, input.finalizer, add), finalizerChange: `${decision.finalizer} ${input.finalizer}` };
}

/** What the hook's answer means for the parent's finalizer and for its children. */
export interface HookOutcome {
  /** Whether loom would create, update and delete children after this call. */
  manage: boolean;
  removeFinalizer: boolean;
  /** The finalizer change to report, before or after the hook. */
  finalizer: string | undefined;
  /** The answer's `finalized`, reported for a finalize call only. */
  finalized: boolean | undefined;
}

/** The outcome of the call `life` chose, given the answer's `finalized` (docs/concepts.md, "Finalizers"). */
export function outcomeOf(life: Lifecycle, input: { finalizer: string; finalized: boolean }): HookOutcome {
  const { decision, parent } = life;
  if (decision.hook !== 'finalize') return { manage: decision.manageChildren, removeFinalizer: false, finalizer: life.finalizerChange, finalized: undefined };
  const after = afterFinalize({ parent, finalized: input.finalized, manageChildren: decision.manageChildren });
  return {
    manage: after.manageChildren,
    removeFinalizer: after.removeFinalizer,
    finalizer: after.removeFinalizer ? `remove ${input.finalizer}` : life.finalizerChange,
    finalized: input.finalized,
  };
}

/** The related objects for the sync request, or `undefined` without a customize hook (`related` is then `{}`). */
export async function relatedFor(ctx: RenderContext, hook: Hook | undefined, parent: KubeObject): Promise<RelatedResult | undefined> {
  const runner = ctx.runners.customize;
  if (!hook || !runner) {
    if (ctx.related) ctx.notes.push('--related is not used: the controller has no customize hook, so its hooks get no related objects');
    return undefined;
  }
  const result = await relatedObjects({
    controller: ctx.loaded.controller.object, parent, hook, runner, objects: ctx.related ?? [], catalog: ctx.catalog, signal: ctx.signal,
  });
  ctx.notes.push(...result.notes);
  return result;
}

/** A child-resource or attachment rule: a type and its update method. */
export type OwnedRule = ResourceRule & { updateStrategy: { method: UpdateMethod } };

/** An owned-object rule and its type, when known. */
export interface OwnedType {
  rule: OwnedRule;
  type: ResolvedType | undefined;
}

/** A known owned type and its update method. */
export interface ManagedType {
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
export function knownTypes(owned: readonly OwnedType[], desired: readonly KubeObject[], parent: KubeObject): ManagedType[] {
  return owned.flatMap(({ rule, type }) => {
    const known = type ?? typeFromDesired(rule, desired, parent);
    return known ? [{ type: known, method: rule.updateStrategy.method }] : [];
  });
}

/** The plan of the owned objects, when `--observed` was given and loom would manage them. */
export function planFor(ctx: RenderContext, input: { desired: readonly KubeObject[]; observed: readonly KubeObject[]; manage: boolean; types: readonly ManagedType[] }): PlanEntry[] | undefined {
  if (!ctx.observed) return undefined;
  if (!input.manage) {
    ctx.notes.push('no plan: the parent is being deleted, so loom leaves its children to the garbage collector');
    return undefined;
  }
  const methodFor = (apiVersion: string, kind: string): UpdateMethod =>
    input.types.find(({ type }) => type.apiVersion === apiVersion && type.kind === kind)?.method ?? 'OnDelete';
  return renderPlan({ desired: input.desired, observed: input.observed, methodFor, applyStrategy: ctx.applyStrategy });
}
