/**
 * Asking a CompositeController's hook about a parent, and checking its answer: the desired children
 * are validated and completed before anything is written, so a garbled answer fails the sync whole.
 */
import { compositeRequest, decodeCompositeResponse, type CompositeHookResponse, type KubeObject } from '../../api/index.ts';
import { normaliseDesiredChildrenInSlices } from '../../core/index.ts';
import { inTurns, SLICE_CHILDREN } from '../in-turns.ts';
import { callHook } from '../../sync/call-hook.ts';
import type { ParentCall } from '../../sync/composite-ports.ts';
import type { CompositeContext } from './context.ts';
import { shardLabels } from '../shard-scope.ts';

/** The hook's answer, its children validated and completed for writing. */
export async function validatedAnswer(ctx: CompositeContext, call: ParentCall, signal: AbortSignal): Promise<CompositeHookResponse> {
  const which = call.finalizing ? 'finalize' : 'sync';
  const shown = call.shown ?? call.parent;
  const response = await callHook({
    which, spec: ctx.controller.spec.hooks[which], runner: ctx.runners[which], logger: ctx.logger, decode: decodeCompositeResponse,
    limit: { field: 'children', max: ctx.host.settings.maxChildrenPerParent },
    request: async (version) => compositeRequest({
      controller: ctx.controller.object, parent: shown, version, finalizing: call.finalizing,
      children: { objects: call.claimed, declaredTypes: ctx.children.map((c) => c.type) },
      related: call.related, readiness: await ctx.readiness.judge(call.claimed, signal),
    }),
  }, signal);
  return { ...response, children: await desiredChildren(ctx, call, response.children) };
}

/** The hook's children, checked and completed; any problem fails the sync before a single write. */
async function desiredChildren(ctx: CompositeContext, call: ParentCall, children: KubeObject[]): Promise<KubeObject[]> {
  const result = await inTurns(normaliseDesiredChildrenInSlices({
    parent: call.parent, children, selector: call.selector, generateSelector: ctx.controller.spec.generateSelector,
    declaredTypes: ctx.children.map((c) => ({ apiVersion: c.type.apiVersion, kind: c.type.kind, namespaced: c.type.namespaced })),
    applyStrategy: ctx.host.settings.applyStrategy, maxChildren: ctx.host.settings.maxChildrenPerParent, labels: shardLabels(ctx.host, call.parent),
  }, SLICE_CHILDREN));
  if (!result.ok) throw new Error(`the ${call.finalizing ? 'finalize' : 'sync'} hook's children are invalid: ${result.problems.join('; ')}`);
  return result.children;
}
