/**
 * One DecoratorController sync of one target, offline (docs/concepts.md, "DecoratorController writes";
 * docs/hook-protocol.md, "DecoratorController requests"): the target must be of one of `spec.resources`
 * and match its selectors; the finalizer lifecycle decides sync or finalize; the target's attachments
 * are picked from `--observed`; customize picks from `--related`; the hook is called; its attachments
 * are validated and completed as loom applies them (namespace, controller reference, the decorator's
 * annotation); and its labels, annotations and status are applied to a copy of the target, whose changes
 * are printed as a diff. Nothing is written anywhere.
 */
import { decodeDecoratorResponse, decoratorFinalizer, decoratorRequest, type DecoratorController, type DecoratorHookResponse, type KubeObject } from '../api/index.ts';
import { attachmentAnnotations, decorates, normaliseDesiredChildren, planTargetWrites } from '../core/index.ts';
import { decoratorClaims } from './render-claims.ts';
import { knownTypes, lifecycleOf, outcomeOf, ownedTypes, planFor, relatedFor, type ManagedType, type RenderContext, type RenderReport } from './render-context.ts';
import { diffPaths } from './render-diff.ts';
import { RenderError } from './render-error.ts';
import { callRenderHook } from './render-hook-call.ts';

/** The `spec.resources` rules of the target's type; an error when there are none. */
function rulesForTarget(ctx: RenderContext, controller: DecoratorController): DecoratorController['spec']['resources'] {
  const { parent } = ctx;
  const rules = controller.spec.resources.filter((rule) => rule.apiVersion === parent.apiVersion && ctx.catalog.resolve(rule)?.kind === parent.kind);
  if (rules.length > 0) return rules;
  const named = controller.spec.resources.map((r) => `${r.resource}.${r.apiVersion}`).join(', ');
  throw new RenderError(`${ctx.parentFile}: kind: ${parent.kind} (${parent.apiVersion}) is not one of spec.resources (${named}) of ${ctx.loaded.where.slice(0, -2)}; for an irregular plural, put the CRD in that file`);
}

function desiredAttachments(ctx: RenderContext, input: { target: KubeObject; response: DecoratorHookResponse; types: readonly ManagedType[]; controllerName: string; which: string }): KubeObject[] {
  const result = normaliseDesiredChildren({
    parent: input.target, children: input.response.attachments, generateSelector: false, annotations: attachmentAnnotations(input.controllerName),
    declaredTypes: input.types.map(({ type }) => type), applyStrategy: ctx.applyStrategy,
  });
  if (!result.ok) throw new RenderError(`${input.which} hook: invalid attachments:\n${result.problems.map((p) => `  ${p}`).join('\n')}`);
  return result.children;
}

/** The hook's answer for the target, and the target before it. */
async function askHook(ctx: RenderContext, controller: DecoratorController, input: { target: KubeObject; finalizing: boolean; observed: readonly KubeObject[]; requestTypes: ManagedType['type'][] }) {
  const { spec } = controller;
  const related = await relatedFor(ctx, spec.hooks.customize, input.target);
  const which = input.finalizing ? 'finalize' : 'sync';
  const response = await callRenderHook({
    which, spec: spec.hooks[which], runner: ctx.runners[which], where: ctx.loaded.where, signal: ctx.signal, decode: decodeDecoratorResponse,
    request: (version) => decoratorRequest({
      controller: controller.object, object: input.target, version, finalizing: input.finalizing,
      attachments: { objects: input.observed, declaredTypes: input.requestTypes }, related: related?.typed,
    }),
  });
  return { related, which, response };
}

/** `decorated` without the empty label, annotation and finalizer fields the original did not have. */
function tidied(original: KubeObject, decorated: KubeObject): KubeObject {
  const metadata = { ...decorated.metadata };
  for (const field of ['labels', 'annotations', 'finalizers'] as const) {
    const value = metadata[field];
    if (original.metadata[field] === undefined && value !== undefined && Object.keys(value).length === 0) delete metadata[field];
  }
  return { ...decorated, metadata };
}

/** The target as the hook sees it, and what loom decided about it before calling the hook. */
function prepare(ctx: RenderContext, controller: DecoratorController) {
  const rules = rulesForTarget(ctx, controller);
  const finalizer = decoratorFinalizer(controller.name);
  const life = lifecycleOf(ctx, { finalizer, finalizeHook: controller.spec.hooks.finalize, matches: rules.some((rule) => decorates(rule, ctx.parent)) });
  if (life.decision.hook === 'none') {
    throw new RenderError(`${ctx.parentFile}: metadata: the labels and annotations do not match the selectors of spec.resources, so loom would not sync this target`);
  }
  const target = life.parent;
  const owned = ownedTypes(ctx, controller.spec.attachments, 'spec.attachments');
  const requestTypes = owned.flatMap(({ type }) => type ?? []);
  const claims = decoratorClaims({ target, controllerName: controller.name, observed: ctx.observed ?? [], types: requestTypes });
  return { finalizer, life, target, owned, requestTypes, claims };
}

/** Renders one sync (or finalize) of the target `ctx.parent` by `controller`. */
export async function renderDecorator(ctx: RenderContext, controller: DecoratorController): Promise<RenderReport> {
  const { finalizer, life, target, owned, requestTypes, claims } = prepare(ctx, controller);
  const finalizing = life.decision.hook === 'finalize';
  const { related, which, response } = await askHook(ctx, controller, { target, finalizing, observed: claims.observed, requestTypes });
  const types = knownTypes(owned, response.attachments, target);
  const attachments = desiredAttachments(ctx, { target, response, types, controllerName: controller.name, which });
  const outcome = outcomeOf(life, { finalizer, finalized: response.finalized });
  const writes = planTargetWrites(target, response, { finalizer, removeFinalizer: outcome.removeFinalizer, statusSubresource: true });
  // Absent values are left out of the printed report.
  return {
    hook: which,
    finalizer: outcome.finalizer,
    related: related?.picked,
    labels: response.labels,
    annotations: response.annotations,
    status: response.status,
    targetChanges: diffPaths(ctx.parent, tidied(ctx.parent, writes.target)),
    attachments,
    resyncAfterSeconds: response.resyncAfterSeconds || undefined,
    finalized: outcome.finalized,
    claims: claims.claims.length > 0 ? claims.claims : undefined,
    plan: planFor(ctx, { desired: attachments, observed: claims.observed, manage: outcome.manage, types }),
  };
}
