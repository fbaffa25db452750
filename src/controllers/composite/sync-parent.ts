/**
 * One sync of one CompositeController parent — the reconcile (contract §3.2, §4, §5): finalizer,
 * claim (adopt/release), hook, validation of the desired children, child writes, status. Reads come
 * from the caches; the only uncached read is the parent check before an adoption. No child is
 * created, changed or deleted before the hook's answer has been validated, so a failing or garbled
 * hook never deletes a child.
 */
import { decodeCompositeResponse, matchesSelector, objectKey, responseModeOf, compositeRequest, type KubeObject, type LabelSelector, type CompositeHookResponse } from '../../api/index.ts';
import { executePlan, childKey } from '../../apply/index.ts';
import {
  afterFinalize, childRefOf, decideLifecycle, fingerprintOf, normaliseDesiredChildren, parentSelector, planChildren, sanitizeForApply, type ChildRef,
} from '../../core/index.ts';
import { errorChain, TerminalError, type ReconcileResult } from '../../engine/index.ts';
import { claimForParent } from './claim-for-parent.ts';
import type { CompositeContext } from './context.ts';
import { setFinalizer, writeStatus } from './parent-writes.ts';

/** Syncs the parent stored under `key`; a parent that is gone needs nothing. */
export async function syncParent(ctx: CompositeContext, key: string, signal: AbortSignal): Promise<ReconcileResult> {
  const cached = ctx.parents.get(key);
  if (!cached) return {};
  const { spec } = ctx.controller;
  const labelSelector = spec.parentResource.labelSelector;
  const lifecycle = decideLifecycle({
    parent: cached, finalizer: ctx.finalizer, hasFinalizeHook: spec.hooks.finalize !== undefined,
    matchesParentSelector: labelSelector === undefined || matchesSelector(labelSelector, cached.metadata.labels),
  });
  if (lifecycle.hook === 'none') return {};
  // The selector is checked before the finalizer is added: a parent whose selector can never work must
  // not get a finalizer that would hold its deletion forever.
  const selector = parentSelector({ parent: cached, generateSelector: spec.generateSelector });
  let parent = lifecycle.finalizer === 'keep' ? cached : await setFinalizer(ctx, cached, lifecycle.finalizer === 'add');
  const claimed = await claimForParent(ctx, parent, selector);
  const finalizing = lifecycle.hook === 'finalize';
  const response = await callHook(ctx, { parent, claimed, finalizing }, signal);
  const desired = desiredChildren(ctx, parent, selector, response.children);
  let manage = lifecycle.manageChildren;
  if (finalizing) {
    const after = afterFinalize({ parent, finalized: response.finalized, manageChildren: manage });
    if (after.removeFinalizer) parent = await setFinalizer(ctx, parent, false);
    manage = after.manageChildren;
  }
  const failures = manage ? await manageChildren(ctx, desired, claimed) : [];
  await writeStatus(ctx, parent, response.status);
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} child write(s) failed: ${failures.map((f) => errorChain(f).join(': ')).join('; ')}`);
  return response.resyncAfterSeconds > 0 ? { requeueAfterMs: response.resyncAfterSeconds * 1000 } : {};
}

interface HookCall {
  parent: KubeObject;
  claimed: KubeObject[];
  finalizing: boolean;
}

async function callHook(ctx: CompositeContext, call: HookCall, signal: AbortSignal): Promise<CompositeHookResponse> {
  const which = call.finalizing ? 'finalize' : 'sync';
  const spec = ctx.controller.spec.hooks[which];
  const runner = ctx.runners[which];
  if (!spec || !runner) throw new TerminalError(`the ${which} hook is not defined`);
  const request = compositeRequest({
    controller: ctx.controller.object, parent: call.parent, version: spec.version, finalizing: call.finalizing,
    children: { objects: call.claimed, declaredTypes: ctx.children.map((c) => c.type) },
    related: await ctx.related?.of(call.parent, signal),
  });
  const raw = await runner.call(request, signal);
  const { response, ignoredFields } = decodeCompositeResponse(raw, responseModeOf(spec));
  if (ignoredFields.length > 0) ctx.logger.debug({ ignoredFields }, `${which} hook response had fields loom ignores`);
  return response;
}

/** The hook's children, checked and completed; any problem fails the sync before a single write. */
function desiredChildren(ctx: CompositeContext, parent: KubeObject, selector: LabelSelector, children: KubeObject[]): KubeObject[] {
  const result = normaliseDesiredChildren({
    parent, children, selector, generateSelector: ctx.controller.spec.generateSelector,
    declaredTypes: ctx.children.map((c) => ({ apiVersion: c.type.apiVersion, kind: c.type.kind, namespaced: c.type.namespaced })),
  });
  if (!result.ok) throw new Error(`the sync hook's children are invalid: ${result.problems.join('; ')}`);
  return ctx.host.settings.applyStrategy === 'server-side-apply' ? result.children.map(sanitizeForApply) : result.children;
}

/**
 * Desired children loom applied moments ago that its cache has not seen yet: applying them again
 * would be a wasted write. Only a child absent from its type's whole cache counts — one that is cached
 * but not claimed (released, say) is applied as usual. Once the watch delivers it, it is compared as
 * usual; if it is deleted, its record goes with it.
 */
function awaitingCache(ctx: CompositeContext, desired: KubeObject): boolean {
  const store = ctx.children.find((c) => c.type.apiVersion === desired.apiVersion && c.type.kind === desired.kind)?.store;
  if (!store || store.get(objectKey(desired.metadata.namespace, desired.metadata.name ?? ''))) return false;
  return ctx.records.get(childKey(childRefOf(desired)))?.hash === fingerprintOf(desired);
}

async function manageChildren(ctx: CompositeContext, allDesired: KubeObject[], observed: KubeObject[]): Promise<Error[]> {
  const { applyStrategy, fieldManager } = ctx.host.settings;
  const byRef = new Map(observed.map((child) => [childKey(childRefOf(child)), child]));
  const desired = applyStrategy === 'server-side-apply' ? allDesired.filter((d) => !awaitingCache(ctx, d)) : allDesired;
  const methodFor = (apiVersion: string, kind: string) =>
    ctx.children.find((c) => c.type.apiVersion === apiVersion && c.type.kind === kind)?.rule.updateStrategy.method ?? 'OnDelete';
  const decisions = planChildren({
    desired, observed, methodFor, applyStrategy, lastApplied: (child) => ctx.records.get(childKey(childRefOf(child))),
  });
  const outcomes = await executePlan({
    decisions, writer: ctx.host.writer, fieldManager, applyStrategy, records: ctx.records, logger: ctx.logger,
    observedOf: (ref: ChildRef) => byRef.get(childKey(ref)),
  });
  for (const outcome of outcomes) if (outcome.wrote && !outcome.error) ctx.host.metrics.applied(ctx.labels, outcome.action);
  return outcomes.flatMap((outcome) => (outcome.error ? [outcome.error] : []));
}
