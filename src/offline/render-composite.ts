/**
 * One CompositeController sync, offline: loom's own sync (sync/composite-sync.ts, the
 * same steps in the same order, the same decisions) over ports that read the files of a render and
 * record what would be written. The parent is checked against `spec.parentResource`, the finalizer
 * lifecycle decides sync or finalize, `--observed` objects are claimed, customize picks from
 * `--related`, the hook is called, and its children are validated and completed exactly as loom would
 * apply them (namespace, controller reference, `controller-uid` label with `generateSelector`;
 * server-side apply drops the fields a client must not apply). The status gets `observedGeneration`.
 * Nothing is written anywhere.
 */
import {
  compositeRequest, decodeCompositeResponse, GROUP_VERSION, groupOf, KINDS, objectKey,
  type CompositeController, type CompositeHookResponse, type KubeObject, type LabelSelector,
} from '../api/index.ts';
import type { ParentCall } from '../sync/composite-ports.ts';
import { rollingAnswer } from '../sync/rollout.ts';
import { syncParent } from '../sync/composite-sync.ts';
import type { CompositeSyncPorts } from '../sync/composite-ports.ts';
import {
  desiredStatus, finalizerName, isBuiltInGroup, normaliseDesiredChildren, ParentSelectorError, planPoliciesFor, StatusConditionsError, usesRollingUpdates,
  wantsReadyCondition, withReadyCondition, type ChildrenReport, type RevisionWrite,
} from '../core/index.ts';
import { compositeClaims, type Claims } from './render-claims.ts';
import {
  asLoomWouldHaveIt, judgedTypes, knownTypes, noteNoPlan, ownedTypes, planFor, relatedFor, ruleOf, withFinalizer, type PlannedType, type RenderContext, type RenderReport,
} from './render-context.ts';
import { RenderError, throwIfAny } from './render-error.ts';
import { renderOrder, type RenderOrder } from './render-order.ts';
import type { PlanEntry } from './render-plan.ts';
import { callRenderHook } from './render-hook-call.ts';
import type { RelatedResult } from './render-related.ts';

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

/** The hook's children, validated and completed as loom applies them. */
function desiredChildren(ctx: RenderContext, input: { parent: KubeObject; response: CompositeHookResponse; selector: LabelSelector; types: readonly PlannedType[]; which: string; generateSelector: boolean }): KubeObject[] {
  const result = normaliseDesiredChildren({
    parent: input.parent, children: input.response.children, selector: input.selector, generateSelector: input.generateSelector,
    declaredTypes: input.types.map(({ type }) => type), applyStrategy: ctx.applyStrategy,
  });
  if (!result.ok) throw new RenderError(`${input.which} hook: invalid children:\n${result.problems.map((p) => `  ${p}`).join('\n')}`);
  return result.children;
}

/**
 * The status loom would write (as controllers/composite/parent-writes.ts makes it): the hook's, with
 * `observedGeneration`, and the Ready condition when the controller wants one. A built-in type's status
 * belongs to Kubernetes' own controllers: a hook saying nothing leaves it alone.
 */
function statusOf(ctx: RenderContext, parent: KubeObject, hookStatus: CompositeHookResponse['status'], ready: { report: ChildrenReport | undefined; wanted: boolean | undefined }): unknown {
  const group = groupOf(parent.apiVersion);
  if (hookStatus === null && isBuiltInGroup(group)) {
    ctx.notes.push(`the hook returned no status: loom leaves the status of a built-in ${parent.kind} alone`);
    return undefined;
  }
  const { generation } = parent.metadata;
  const status = desiredStatus({ hookStatus, generation });
  if (!wantsReadyCondition(ready.report, ready.wanted)) return status;
  return readyStatus(ctx, status, { report: ready.report, generation, current: parent.status });
}

/**
 * The status with loom's Ready condition. A render has no clock: a `lastTransitionTime` the parent's
 * Ready condition keeps is kept, a new one is left out (a note says so) rather than made up.
 */
function readyStatus(ctx: RenderContext, status: ReturnType<typeof desiredStatus>, input: { report: ChildrenReport; generation: number | undefined; current: unknown }): unknown {
  try {
    const withReady = withReadyCondition(status, input);
    const ready = (withReady.conditions as { type?: unknown; lastTransitionTime?: unknown }[]).find((c) => c.type === 'Ready');
    if (ready?.lastTransitionTime === undefined) ctx.notes.push('status.conditions: the Ready condition has no lastTransitionTime: loom sets it to the time of its status write');
    return withReady;
  } catch (error) {
    if (!(error instanceof StatusConditionsError)) throw error;
    throw new RenderError(`sync hook: ${error.message}`, { cause: error });
  }
}

/** The type of loom's ControllerRevisions, as a render resolves types. */
const REVISION_TYPE = { apiVersion: GROUP_VERSION, resource: KINDS.controllerRevision.resource, kind: KINDS.controllerRevision.kind, namespaced: true };

function isRevision(obj: KubeObject): boolean {
  return obj.apiVersion === REVISION_TYPE.apiVersion && obj.kind === REVISION_TYPE.kind;
}

/** A revision write as the report shows it. */
function describeWrite(write: RevisionWrite): string {
  return write.action === 'delete' ? `delete ${write.name}` : `${write.action} ${write.revision.metadata.name ?? ''}`;
}

/**
 * A rolling controller's answer, as loom's rollout decides it (sync/rollout.ts):
 * the parent's revisions are claimed among the `--observed` ControllerRevisions, the hook is asked once
 * per revision, and the revision writes are recorded.
 */
async function renderRollout(ctx: RenderContext, controller: CompositeController, input: { call: ParentCall; ask: (call: ParentCall) => Promise<CompositeHookResponse>; recorded: Recorded }): Promise<CompositeHookResponse> {
  const { call, recorded } = input;
  // As a running loom refuses to start such a controller: revisions live in the parent's namespace, and
  // the rollout's Updated condition in a status the controller owns.
  if (!call.parent.metadata.namespace) throw new RenderError(`${ctx.parentFile}: metadata.namespace: rolling updates need a namespaced parent (ControllerRevisions live in its namespace)`);
  if (isBuiltInGroup(groupOf(call.parent.apiVersion))) throw new RenderError(`${ctx.parentFile}: apiVersion: rolling updates need a parent whose status the controller owns; ${call.parent.kind} is a built-in type`);
  const { childResources, parentResource } = controller.spec;
  const { response } = await rollingAnswer({
    controller, parentType: parentResource, applyStrategy: ctx.applyStrategy,
    strategyFor: (apiGroup, kind) => childResources.find((rule) => {
      const type = ctx.catalog.resolve(rule);
      return type !== undefined && groupOf(type.apiVersion) === apiGroup && type.kind === kind;
    })?.updateStrategy,
  }, {
    claimRevisions: (parent, selector) => {
      const claims = compositeClaims({ parent, selector, observed: (ctx.observed ?? []).filter(isRevision), types: [REVISION_TYPE] });
      recorded.revisionClaims = claims.claims;
      return Promise.resolve(claims.observed);
    },
    ask: (asked) => input.ask(asked),
    writeRevision: (write) => {
      (recorded.revisions ??= []).push(describeWrite(write));
      return Promise.resolve();
    },
  }, call, ctx.signal);
  return response;
}

/** What the sync did, as the ports saw it: the report in the making. */
interface Recorded {
  /** Revision writes and claims, for a rolling controller. */
  revisions?: string[];
  revisionClaims?: Claims['claims'];
  hook?: 'sync' | 'finalize';
  finalizer?: string | undefined;
  related?: RelatedResult | undefined;
  children?: KubeObject[];
  types?: PlannedType[];
  status?: unknown;
  resyncAfterSeconds?: number | undefined;
  finalized?: boolean | undefined;
  claims?: Claims | undefined;
  plan?: PlanEntry[] | undefined;
  /** The order of the child writes, the children's readiness and holds (`render-order.ts`). */
  order?: RenderOrder | undefined;
}

/**
 * The ports of loom's sync (sync/composite-ports.ts) over the files of a render: the
 * parent is the `--parent` file, claims come from `--observed`, customize picks from `--related`, and
 * every write is recorded in `recorded` instead of made.
 */
function offlinePorts(ctx: RenderContext, controller: CompositeController, parent: KubeObject, recorded: Recorded): CompositeSyncPorts {
  const finalizer = finalizerName(controller.name);
  const owned = ownedTypes(ctx, controller.spec.childResources, 'spec.childResources');
  const requestTypes = owned.flatMap(({ type }) => type ?? []);
  const judge = ctx.runners.judge(judgedTypes(ctx, owned, 'spec.childResources'));
  return {
    parent: () => parent,
    related: async (shown) => {
      recorded.related = await relatedFor(ctx, controller.spec.hooks.customize, shown);
      return recorded.related?.typed;
    },
    setFinalizer: (obj, present) => {
      recorded.finalizer = `${present ? 'add' : 'remove'} ${finalizer}`;
      return Promise.resolve(withFinalizer(obj, finalizer, present));
    },
    claimChildren: (obj, selector) => {
      // ControllerRevisions among --observed are a rolling controller's own, claimed by the rollout.
      const observed = (ctx.observed ?? []).filter((o) => !isRevision(o));
      recorded.claims = ctx.observed && compositeClaims({ parent: obj, selector, observed, types: requestTypes });
      return Promise.resolve(recorded.claims?.observed ?? []);
    },
    answer: async (call) => {
      const which = call.finalizing ? 'finalize' : 'sync';
      recorded.hook = which;
      const ask = async (asked: ParentCall): Promise<CompositeHookResponse> => {
        const response = await callRenderHook({
          which, spec: controller.spec.hooks[which], runner: ctx.runners[which], where: ctx.loaded.where, signal: ctx.signal, decode: decodeCompositeResponse,
          request: async (version) => compositeRequest({
            controller: controller.object, parent: asked.shown ?? asked.parent, version, finalizing: asked.finalizing,
            children: { objects: asked.claimed, declaredTypes: requestTypes }, related: asked.related,
            readiness: await judge.judge(asked.claimed, ctx.signal),
          }),
        });
        const types = knownTypes(owned, response.children, asked.parent);
        return { ...response, children: desiredChildren(ctx, { parent: asked.parent, response, selector: asked.selector, types, which, generateSelector: controller.spec.generateSelector }) };
      };
      // As loom: a parent going away without a finalize call leaves its children to the garbage collector, not a rollout.
      const rolls = usesRollingUpdates(controller.spec.childResources) && (call.finalizing || !call.parent.metadata.deletionTimestamp);
      const response = rolls ? await renderRollout(ctx, controller, { call, ask, recorded }) : await ask(call);
      recorded.types = knownTypes(owned, response.children, call.parent);
      recorded.children = response.children;
      recorded.resyncAfterSeconds = response.resyncAfterSeconds || undefined;
      if (call.finalizing) recorded.finalized = response.finalized;
      return response;
    },
    manageChildren: async ({ parent: owner, desired }) => {
      const observed = recorded.claims?.observed ?? [];
      const declared = (recorded.types ?? []).map(({ type }) => type);
      const policies = planPoliciesFor((obj) => ruleOf(owned, obj), owner);
      const planned = await planFor(ctx, { desired, observed, types: recorded.types ?? [], policies });
      recorded.plan = planned.entries;
      recorded.order = await renderOrder({
        desired, observed, decisions: planned.decisions, answerOf: planned.answerOf, declared, ruleOf: (child: KubeObject) => ruleOf(owned, child),
        judge: (objects) => judge.judge(objects, ctx.signal), reportReadiness: controller.spec.readyCondition === true,
      });
      return { failures: [], report: recorded.order?.report };
    },
    childRule: (child) => ruleOf(owned, child),
    writeStatus: (obj, hookStatus, { report }) => {
      recorded.status = statusOf(ctx, obj, hookStatus, { report, wanted: controller.spec.readyCondition });
      return Promise.resolve();
    },
  };
}

/** The claim lines of the children and, when rolling, of the revisions. */
function claimsOf(recorded: Recorded): Claims['claims'] | undefined {
  const claims = [...(recorded.claims?.claims ?? []), ...(recorded.revisionClaims ?? [])];
  return claims.length > 0 ? claims : undefined;
}

/** Renders one sync (or finalize) of `ctx.parent` by `controller`: loom's own sync, over offline ports. */
export async function renderComposite(ctx: RenderContext, controller: CompositeController): Promise<RenderReport> {
  checkParentType(ctx, controller);
  const recorded: Recorded = {};
  const ports = offlinePorts(ctx, controller, asLoomWouldHaveIt(ctx, finalizerName(controller.name), controller.spec.hooks.finalize !== undefined), recorded);
  try {
    await syncParent({ controller, finalizer: finalizerName(controller.name) }, ports, objectKey(ctx.parent.metadata.namespace, ctx.parent.metadata.name ?? ''), ctx.signal);
  } catch (error) {
    if (!(error instanceof ParentSelectorError)) throw error;
    const reason = error.cause instanceof Error ? error.cause.message : error.message;
    throw new RenderError(`${ctx.parentFile}: spec.selector: ${reason.replace(/^spec\.selector /, '')}`, { cause: error });
  }
  if (recorded.hook === undefined) {
    throw new RenderError(`${ctx.parentFile}: metadata.labels: do not match spec.parentResource.labelSelector, so loom would not sync this parent`);
  }
  // No child writes: the parent is being deleted and its children are the garbage collector's.
  if (recorded.plan === undefined) noteNoPlan(ctx);
  // Absent values are left out of the printed report.
  return {
    hook: recorded.hook,
    finalizer: recorded.finalizer,
    related: recorded.related?.picked,
    children: recorded.children,
    status: recorded.status,
    resyncAfterSeconds: recorded.resyncAfterSeconds,
    finalized: recorded.finalized,
    claims: claimsOf(recorded),
    revisions: recorded.revisions,
    plan: recorded.plan,
    readiness: recorded.order?.readiness,
    held: recorded.order?.held,
  };
}
