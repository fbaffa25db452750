/**
 * One CompositeController sync, offline (docs/architecture.md, "One sync of a parent"): the parent is
 * checked against `spec.parentResource`, the finalizer lifecycle decides sync or finalize, `--observed`
 * objects are claimed, customize picks from `--related`, the hook is called, and its children are
 * validated and completed exactly as loom would apply them (namespace, controller reference,
 * `controller-uid` label with `generateSelector`; server-side apply drops the fields a client must not
 * apply). The status gets `observedGeneration`. Nothing is written anywhere.
 */
import {
  compositeRequest, decodeCompositeResponse, groupOf, matchesSelector,
  type CompositeController, type CompositeHookResponse, type KubeObject, type LabelSelector,
} from '../api/index.ts';
import { desiredStatus, finalizerName, isBuiltInGroup, normaliseDesiredChildren, ParentSelectorError, parentSelector } from '../core/index.ts';
import { compositeClaims, type Claims } from './render-claims.ts';
import {
  knownTypes, lifecycleOf, outcomeOf, ownedTypes, planFor, relatedFor, type Lifecycle, type ManagedType, type OwnedType, type RenderContext, type RenderReport,
} from './render-context.ts';
import { RenderError, throwIfAny } from './render-error.ts';
import { callRenderHook } from './render-hook-call.ts';
import type { ResolvedType } from './render-types.ts';

/** The parent must be of the controller's parent type, as loom only ever syncs those. */
function checkParentType(ctx: RenderContext, controller: CompositeController): void {
  const rule = controller.spec.parentResource;
  const { parent, parentFile } = ctx;
  const named = `${rule.resource}.${rule.apiVersion}`;
  if (parent.apiVersion !== rule.apiVersion) {
    throwIfAny([`${parentFile}: apiVersion: expected ${rule.apiVersion}, the apiVersion of spec.parentResource (${named})`]);
  }
  const type = ctx.catalog.resolve(rule);
  if (type?.kind === parent.kind) return;
  const why = type ? `spec.parentResource ${named} is kind ${type.kind}` : `it does not name spec.parentResource ${named} (for an irregular plural, put the CRD in ${ctx.loaded.where.slice(0, -2)})`;
  throwIfAny([`${parentFile}: kind: ${parent.kind}: ${why}`]);
}

function selectorOf(ctx: RenderContext, parent: KubeObject, generateSelector: boolean): LabelSelector {
  try {
    return parentSelector({ parent, generateSelector });
  } catch (error) {
    if (!(error instanceof ParentSelectorError)) throw error;
    const reason = error.cause instanceof Error ? error.cause.message : error.message;
    throw new RenderError(`${ctx.parentFile}: spec.selector: ${reason.replace(/^spec\.selector /, '')}`, { cause: error });
  }
}

/** The hook's children, validated and completed as loom applies them. */
function desiredChildren(ctx: RenderContext, input: { parent: KubeObject; response: CompositeHookResponse; selector: LabelSelector; types: readonly ManagedType[]; which: string; generateSelector: boolean }): KubeObject[] {
  const result = normaliseDesiredChildren({
    parent: input.parent, children: input.response.children, selector: input.selector, generateSelector: input.generateSelector,
    declaredTypes: input.types.map(({ type }) => type), applyStrategy: ctx.applyStrategy,
  });
  if (!result.ok) throw new RenderError(`${input.which} hook: invalid children:\n${result.problems.map((p) => `  ${p}`).join('\n')}`);
  return result.children;
}

/** A built-in type's status belongs to Kubernetes' own controllers: a hook saying nothing leaves it alone. */
function statusOf(ctx: RenderContext, parent: KubeObject, response: CompositeHookResponse): unknown {
  const group = groupOf(parent.apiVersion);
  if (response.status === null && isBuiltInGroup(group)) {
    ctx.notes.push(`the hook returned no status: loom leaves the status of a built-in ${parent.kind} alone`);
    return undefined;
  }
  return desiredStatus({ hookStatus: response.status, generation: parent.metadata.generation });
}

/** The parent as the hook sees it, and what loom decided about it before calling the hook. */
interface Prepared {
  life: Lifecycle;
  parent: KubeObject;
  selector: LabelSelector;
  owned: OwnedType[];
  requestTypes: ResolvedType[];
  claims: Claims | undefined;
}

function prepare(ctx: RenderContext, controller: CompositeController): Prepared {
  const { spec } = controller;
  checkParentType(ctx, controller);
  const labelSelector = spec.parentResource.labelSelector;
  const matches = labelSelector === undefined || matchesSelector(labelSelector, ctx.parent.metadata.labels);
  const life = lifecycleOf(ctx, { finalizer: finalizerName(controller.name), finalizeHook: spec.hooks.finalize, matches });
  if (life.decision.hook === 'none') {
    throw new RenderError(`${ctx.parentFile}: metadata.labels: do not match spec.parentResource.labelSelector, so loom would not sync this parent`);
  }
  const { parent } = life;
  const selector = selectorOf(ctx, parent, spec.generateSelector);
  const owned = ownedTypes(ctx, spec.childResources, 'spec.childResources');
  const requestTypes = owned.flatMap(({ type }) => type ?? []);
  const claims = ctx.observed && compositeClaims({ parent, selector, observed: ctx.observed, types: requestTypes });
  return { life, parent, selector, owned, requestTypes, claims };
}

async function askHook(ctx: RenderContext, controller: CompositeController, prepared: Prepared) {
  const { spec } = controller;
  const { parent } = prepared;
  const related = await relatedFor(ctx, spec.hooks.customize, parent);
  const which = prepared.life.decision.hook === 'finalize' ? 'finalize' : 'sync';
  const response = await callRenderHook({
    which, spec: spec.hooks[which], runner: ctx.runners[which], where: ctx.loaded.where, signal: ctx.signal, decode: decodeCompositeResponse,
    request: (version) => compositeRequest({
      controller: controller.object, parent, version, finalizing: which === 'finalize',
      children: { objects: prepared.claims?.observed ?? [], declaredTypes: prepared.requestTypes }, related: related?.typed,
    }),
  });
  return { related, which, response };
}

/** Renders one sync (or finalize) of `ctx.parent` by `controller`. */
export async function renderComposite(ctx: RenderContext, controller: CompositeController): Promise<RenderReport> {
  const prepared = prepare(ctx, controller);
  const { parent, life, claims } = prepared;
  const { related, which, response } = await askHook(ctx, controller, prepared);
  const types = knownTypes(prepared.owned, response.children, parent);
  const children = desiredChildren(ctx, { parent, response, selector: prepared.selector, types, which, generateSelector: controller.spec.generateSelector });
  const outcome = outcomeOf(life, { finalizer: finalizerName(controller.name), finalized: response.finalized });
  // Absent values are left out of the printed report.
  return {
    hook: which,
    finalizer: outcome.finalizer,
    related: related?.picked,
    children,
    status: statusOf(ctx, parent, response),
    resyncAfterSeconds: response.resyncAfterSeconds || undefined,
    finalized: outcome.finalized,
    claims: claims?.claims.length ? claims.claims : undefined,
    plan: planFor(ctx, { desired: children, observed: claims?.observed ?? [], manage: outcome.manage, types }),
  };
}
