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
import type { DecoratorSyncPorts } from '../sync/decorator-ports.ts';
import { syncTarget } from '../sync/decorator-sync.ts';
import { attachmentAnnotations, decorates, normaliseDesiredChildren, type TargetWrites } from '../core/index.ts';
import { decoratorClaims, type Claims } from './render-claims.ts';
import {
  asLoomWouldHaveIt, judgedTypes, knownTypes, noteNoPlan, ownedTypes, planFor, relatedFor, withFinalizer, type PlannedType, type RenderContext, type RenderReport,
} from './render-context.ts';
import { diffPaths } from './render-diff.ts';
import { RenderError } from './render-error.ts';
import { callRenderHook } from './render-hook-call.ts';
import type { RelatedResult } from './render-related.ts';
import type { PlanEntry } from './render-plan.ts';

/** The `spec.resources` rules of the target's type; an error when there are none. */
function rulesForTarget(ctx: RenderContext, controller: DecoratorController): DecoratorController['spec']['resources'] {
  const { parent } = ctx;
  const rules = controller.spec.resources.filter((rule) => rule.apiVersion === parent.apiVersion && ctx.catalog.resolve(rule)?.kind === parent.kind);
  if (rules.length > 0) return rules;
  const named = controller.spec.resources.map((r) => `${r.resource}.${r.apiVersion}`).join(', ');
  throw new RenderError(`${ctx.parentFile}: kind: ${parent.kind} (${parent.apiVersion}) is not one of spec.resources (${named}) of ${ctx.loaded.where.slice(0, -2)}; for an irregular plural, put the CRD in that file`);
}

function desiredAttachments(ctx: RenderContext, input: { target: KubeObject; response: DecoratorHookResponse; types: readonly PlannedType[]; controllerName: string; which: string }): KubeObject[] {
  const result = normaliseDesiredChildren({
    parent: input.target, children: input.response.attachments, generateSelector: false, annotations: attachmentAnnotations(input.controllerName),
    declaredTypes: input.types.map(({ type }) => type), applyStrategy: ctx.applyStrategy,
  });
  if (!result.ok) throw new RenderError(`${input.which} hook: invalid attachments:\n${result.problems.map((p) => `  ${p}`).join('\n')}`);
  return result.children;
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

/** What the sync did, as the ports saw it: the report in the making. */
interface Recorded {
  hook?: 'sync' | 'finalize';
  finalizer?: string | undefined;
  related?: RelatedResult | undefined;
  response?: DecoratorHookResponse;
  attachments?: KubeObject[];
  types?: PlannedType[];
  finalized?: boolean | undefined;
  claims?: Claims;
  writes?: TargetWrites;
  plan?: PlanEntry[] | undefined;
}

/**
 * The ports of loom's decorator sync (sync/decorator-ports.ts) over the files of a render:
 * the target is the `--parent` file, its attachments come from `--observed`, customize picks from
 * `--related`, and every write is recorded in `recorded` instead of made.
 */
function offlinePorts(ctx: RenderContext, controller: DecoratorController, target: KubeObject, recorded: Recorded): DecoratorSyncPorts<null> {
  const rules = rulesForTarget(ctx, controller);
  const finalizer = decoratorFinalizer(controller.name);
  const owned = ownedTypes(ctx, controller.spec.attachments, 'spec.attachments');
  const requestTypes = owned.flatMap(({ type }) => type ?? []);
  const judge = ctx.runners.judge(judgedTypes(ctx, owned, 'spec.attachments'));
  return {
    // The status is shown as written through a status subresource: the render cannot tell.
    target: () => ({ object: target, selected: rules.some((rule) => decorates(rule, target)), statusSubresource: true }),
    related: async (obj) => {
      recorded.related = await relatedFor(ctx, controller.spec.hooks.customize, obj);
      return recorded.related?.typed;
    },
    setFinalizer: (obj, present) => {
      recorded.finalizer = `${present ? 'add' : 'remove'} ${finalizer}`;
      return Promise.resolve(withFinalizer(obj, finalizer, present));
    },
    attachments: (obj) => {
      recorded.claims = decoratorClaims({ target: obj, controllerName: controller.name, observed: ctx.observed ?? [], types: requestTypes });
      return recorded.claims.observed;
    },
    answer: async (call) => {
      const which = call.finalizing ? 'finalize' : 'sync';
      recorded.hook = which;
      const response = await callRenderHook({
        which, spec: controller.spec.hooks[which], runner: ctx.runners[which], where: ctx.loaded.where, signal: ctx.signal, decode: decodeDecoratorResponse,
        request: async (version) => decoratorRequest({
          controller: controller.object, object: call.target, version, finalizing: call.finalizing,
          attachments: { objects: call.observed, declaredTypes: requestTypes }, related: call.related,
          readiness: await judge.judge(call.observed, ctx.signal),
        }),
      });
      recorded.types = knownTypes(owned, response.attachments, call.target);
      recorded.attachments = desiredAttachments(ctx, { target: call.target, response, types: recorded.types, controllerName: controller.name, which });
      recorded.response = response;
      if (call.finalizing) recorded.finalized = response.finalized;
      return { ...response, attachments: recorded.attachments };
    },
    writeTarget: (writes) => {
      recorded.writes = writes;
      if (writes.target.metadata.finalizers?.includes(finalizer) === false && target.metadata.finalizers?.includes(finalizer)) recorded.finalizer = `remove ${finalizer}`;
      return Promise.resolve(writes.target);
    },
    manageAttachments: async (_obj, desired, observed) => {
      recorded.plan = (await planFor(ctx, { desired, observed, types: recorded.types ?? [] })).entries;
      return [];
    },
  };
}

/** Renders one sync (or finalize) of the target `ctx.parent` by `controller`: loom's own sync, over offline ports. */
export async function renderDecorator(ctx: RenderContext, controller: DecoratorController): Promise<RenderReport> {
  const recorded: Recorded = {};
  const ports = offlinePorts(ctx, controller, asLoomWouldHaveIt(ctx, decoratorFinalizer(controller.name), controller.spec.hooks.finalize !== undefined), recorded);
  await syncTarget({ controller, finalizer: decoratorFinalizer(controller.name) }, ports, null, ctx.signal);
  const { response, writes } = recorded;
  if (!recorded.hook || !response || !writes) {
    throw new RenderError(`${ctx.parentFile}: metadata: the labels and annotations do not match the selectors of spec.resources, so loom would not sync this target`);
  }
  // No attachment writes: the target is being deleted and its attachments are the garbage collector's.
  if (recorded.plan === undefined) noteNoPlan(ctx);
  // Absent values are left out of the printed report.
  return {
    hook: recorded.hook,
    finalizer: recorded.finalizer,
    related: recorded.related?.picked,
    labels: response.labels,
    annotations: response.annotations,
    status: response.status,
    targetChanges: diffPaths(ctx.parent, tidied(ctx.parent, writes.target)),
    attachments: recorded.attachments,
    resyncAfterSeconds: response.resyncAfterSeconds || undefined,
    finalized: recorded.finalized,
    claims: recorded.claims?.claims.length ? recorded.claims.claims : undefined,
    plan: recorded.plan,
  };
}
