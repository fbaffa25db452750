/**
 * Asking a CompositeController's hook about a parent, and checking its answer: the desired children
 * are validated and completed before anything is written, so a garbled answer fails the sync whole.
 */
import { compositeRequest, decodeCompositeResponse, type CompositeHookResponse, type KubeObject, type LabelSelector, type TypedObjects } from '../../api/index.ts';
import { normaliseDesiredChildrenInSlices } from '../../core/index.ts';
import { inTurns, SLICE_CHILDREN } from '../in-turns.ts';
import { callHook } from '../call-hook.ts';
import type { CompositeContext } from './context.ts';

/** One question to the hook. */
export interface ParentCall {
  /** The parent as it is: children are validated against it and owned by it. */
  parent: KubeObject;
  /** The parent the hook is shown; a rolling update shows older revisions of it. Default: `parent`. */
  shown?: KubeObject | undefined;
  claimed: KubeObject[];
  finalizing: boolean;
  selector: LabelSelector;
  /** The related objects of `parent` (customize asked about the parent as it is, never a revision). */
  related?: TypedObjects | undefined;
}

/** The hook's answer, its children validated and completed for writing. */
export async function validatedAnswer(ctx: CompositeContext, call: ParentCall, signal: AbortSignal): Promise<CompositeHookResponse> {
  const which = call.finalizing ? 'finalize' : 'sync';
  const shown = call.shown ?? call.parent;
  const response = await callHook({
    which, spec: ctx.controller.spec.hooks[which], runner: ctx.runners[which], logger: ctx.logger, decode: decodeCompositeResponse,
    limit: { field: 'children', max: ctx.host.settings.maxChildrenPerParent },
    request: (version) => Promise.resolve(compositeRequest({
      controller: ctx.controller.object, parent: shown, version, finalizing: call.finalizing,
      children: { objects: call.claimed, declaredTypes: ctx.children.map((c) => c.type) },
      related: call.related,
    })),
  }, signal);
  return { ...response, children: await desiredChildren(ctx, call, response.children) };
}

/** The hook's children, checked and completed; any problem fails the sync before a single write. */
async function desiredChildren(ctx: CompositeContext, call: ParentCall, children: KubeObject[]): Promise<KubeObject[]> {
  const result = await inTurns(normaliseDesiredChildrenInSlices({
    parent: call.parent, children, selector: call.selector, generateSelector: ctx.controller.spec.generateSelector,
    declaredTypes: ctx.children.map((c) => ({ apiVersion: c.type.apiVersion, kind: c.type.kind, namespaced: c.type.namespaced })),
    applyStrategy: ctx.host.settings.applyStrategy, maxChildren: ctx.host.settings.maxChildrenPerParent,
  }, SLICE_CHILDREN));
  if (!result.ok) throw new Error(`the ${call.finalizing ? 'finalize' : 'sync'} hook's children are invalid: ${result.problems.join('; ')}`);
  return result.children;
}
