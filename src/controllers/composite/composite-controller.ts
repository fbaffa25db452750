/**
 * Runs one CompositeController: resolves its types, takes shared informers for the parent and child
 * types, routes their events to parent keys, and runs `--workers` workers over one queue. Stopping
 * drains the workers and lets go of the informers.
 */
import { GROUP_VERSION, groupOf, KINDS, objectKey, type CompositeController } from '../../api/index.ts';
import { childRefOf, finalizerName, isBuiltInGroup, usesRollingUpdates } from '../../core/index.ts';
import { childKey } from '../../apply/index.ts';
import { WorkQueue } from '../../engine/index.ts';
import type { InformerLease, ResourceType } from '../../kube/index.ts';
import { runControllerLoop, stopTogether, waitForCaches, type RunningController } from '../controller-loop.ts';
import { resolveResource, type Host } from '../host.ts';
import type { ControllerHookRunners } from '../hook-runners.ts';
import { checkRunnersAndJudge, runnersAndJudge } from '../readiness-judges.ts';
import type { ExpressionSources } from '../expression-sources.ts';
import { createRelatedObjects } from '../related-objects.ts';
import type { CompositeContext } from './context.ts';
import { childHandler, isOurs, parentHandler, type RoutingContext } from './route-events.ts';
import { livePorts } from './live-ports.ts';
import { syncParent } from '../../sync/composite-sync.ts';
import { childFilter, parentFilter, reconcilesParent } from '../shard-scope.ts';
import { controlledByOneOf, startShardLabelRepair } from '../shard-label-repair.ts';

const CONTROLLER_TYPE = 'CompositeController';

/**
 * The types `spec` names, resolved through discovery (`ResourceNotFoundError` for one it does not
 * serve), and the child types with their `readyWhen` for the readiness judge.
 */
export function compositeTypes(host: Host, spec: CompositeController['spec']) {
  const parentType = resolveResource(host, spec.parentResource.apiVersion, spec.parentResource.resource, 'spec.parentResource.resource');
  const childTypes = spec.childResources.map((rule, i) => ({ rule, type: resolveResource(host, rule.apiVersion, rule.resource, `spec.childResources[${i}].resource`) }));
  const judgedTypes = childTypes.map((c, i) => ({ ...c.type, readyWhen: c.rule.readyWhen, field: `spec.childResources[${i}].readyWhen` }));
  return { parentType, childTypes, judgedTypes };
}

/**
 * Builds what a start of `controller` builds before it watches anything (its types from discovery, its
 * hook runners, its readiness judge) and lets go of it: throws what that start would throw there.
 */
export async function checkCompositeController(host: Host, controller: CompositeController, sources: ExpressionSources): Promise<void> {
  const { spec } = controller;
  const { judgedTypes } = compositeTypes(host, spec);
  await checkRunnersAndJudge(host, { hooks: spec.hooks, endpointConfigs: spec.endpointConfigs, controller: { controller: controller.name, type: CONTROLLER_TYPE } }, sources, judgedTypes);
}

/**
 * Starts `controller`. Throws `ResourceNotFoundError` while discovery lacks a named resource, and a
 * timeout when its caches do not fill (loom may not list the type: RBAC, a broken conversion
 * webhook) — both retried by the caller — and any hook-construction error (a bad webhook URL) as is.
 * Aborting `signal` abandons the start.
 */
export async function startCompositeController(
  host: Host, controller: CompositeController, signal: AbortSignal, sources: ExpressionSources,
): Promise<RunningController> {
  const { spec } = controller;
  const labels = { controller: controller.name, type: CONTROLLER_TYPE };
  const logger = host.logger.child({ controller: `${CONTROLLER_TYPE}/${controller.name}` });
  const { parentType, childTypes, judgedTypes } = compositeTypes(host, spec);
  const revisionType = usesRollingUpdates(spec.childResources) ? rollingRevisions(host, parentType) : undefined;
  const { runners, readiness } = await runnersAndJudge(host, { hooks: spec.hooks, endpointConfigs: spec.endpointConfigs, controller: labels }, sources, judgedTypes);
  const customizeRunner = runners.customize;
  const queue = new WorkQueue({ clock: host.clock });

  const parentLease = host.informers.acquire(parentType, undefined, parentFilter(host));
  const childLeases = childTypes.map((c) => host.informers.acquire(c.type, undefined, childFilter(host)));
  const revisionLease = revisionType && host.informers.acquire(revisionType, undefined, childFilter(host));
  const leases: InformerLease[] = [parentLease, ...childLeases, ...(revisionLease ? [revisionLease] : [])];
  const ctx: CompositeContext = {
    host, controller, labels, parentType, logger, runners, readiness,
    related: customizeRunner && createRelatedObjects({
      host, controller: controller.object, hook: spec.hooks.customize!, runner: customizeRunner, enqueue: (key) => queue.add(key), logger,
    }),
    parents: parentLease.informer.store,
    children: childTypes.map((c, i) => ({ ...c, store: childLeases[i]!.informer.store })),
    revisions: revisionLease && { type: revisionLease.informer.type, store: revisionLease.informer.store },
    finalizer: finalizerName(controller.name),
    records: new Map(),
    warnedNoStatus: { value: false },
  };
  await waitForCaches(host, [...leases, ...runners.caches()], signal).catch((err: unknown) => {
    runners.release();
    throw err;
  });
  return run(ctx, { parent: parentLease, owned: [...childLeases, ...(revisionLease ? [revisionLease] : [])] }, queue, runners);
}

/**
 * Rolling updates keep their progress in ControllerRevisions, claimed and routed like children. Those
 * live in the parent's namespace, and the rollout's `Updated` condition goes into the parent's status,
 * so the parent must be a namespaced type whose status is the controller's (not a built-in's).
 */
function rollingRevisions(host: Host, parentType: ResourceType): ResourceType {
  const parent = `${parentType.resource}.${parentType.apiVersion}`;
  if (!parentType.namespaced) throw new Error(`rolling updates need a namespaced parent (ControllerRevisions live in its namespace); ${parent} is cluster-scoped`);
  if (isBuiltInGroup(groupOf(parentType.apiVersion))) throw new Error(`rolling updates need a parent whose status the controller owns; ${parent} is a built-in type`);
  return resolveResource(host, GROUP_VERSION, KINDS.controllerRevision.resource);
}

/** The controller's informers: its parents', and those of what its parents own (children, then ControllerRevisions when rolling). */
interface CompositeLeases {
  parent: InformerLease;
  owned: InformerLease[];
}

function run(ctx: CompositeContext, leases: CompositeLeases, queue: WorkQueue, runners: ControllerHookRunners): RunningController {
  const { host, controller, related } = ctx;
  const routing: RoutingContext = {
    parentType: ctx.parentType, parents: ctx.parents, finalizer: ctx.finalizer,
    parentLabelSelector: controller.spec.parentResource.labelSelector,
    generateSelector: controller.spec.generateSelector,
    ignoreStatusChanges: controller.spec.parentResource.ignoreStatusChanges,
    enqueue: (key) => queue.add(key),
  };
  const unsubscribe = [
    leases.parent.informer.subscribe(parentHandler(routing)),
    ...leases.owned.map((lease) => lease.informer.subscribe(childHandler(routing))),
    // A deleted child's apply record can never match again; drop it so the map does not grow forever.
    ...leases.owned.map((lease) => lease.informer.subscribe({ onDelete: (child) => ctx.records.delete(childKey(childRefOf(child))) })),
    // A deleted parent's customize answer and related-object routes go with it.
    leases.parent.informer.subscribe({ onDelete: (parent) => related?.forget(parent) }),
  ];
  const period = controller.spec.resyncPeriodSeconds;
  const running = runControllerLoop({
    circuits: runners.circuits,
    host, labels: ctx.labels, logger: ctx.logger, queue, keyName: (key) => key,
    reconcile: async (key, signal, logger) => {
      const parent = ctx.parents.get(key);
      if (parent && isOurs(routing, parent) && !(await reconcilesParent(host, ctx.parentType, parent, signal))) return {};
      return syncParent(ctx, livePorts({ ...ctx, logger }), key, signal);
    },
    keys: () => ctx.parents.list().filter((parent) => isOurs(routing, parent)).map((parent) => objectKey(parent.metadata.namespace, parent.metadata.name ?? '')),
    objectOf: (key) => ctx.parents.get(key),
    resyncPeriodMs: period === undefined ? undefined : period * 1000,
    release() {
      for (const off of unsubscribe) off();
      related?.stop();
      runners.release();
      for (const lease of [leases.parent, ...leases.owned]) lease.release();
    },
  });
  const repair = startShardLabelRepair(host, [
    { lease: leases.parent, role: 'parent', concerns: (obj) => isOurs(routing, obj) },
    ...leases.owned.map((lease) => ({ lease, role: 'child' as const, concerns: controlledByOneOf([ctx.parentType]) })),
  ], ctx.logger);
  ctx.logger.info({ parent: `${ctx.parentType.resource}.${ctx.parentType.apiVersion}`, children: ctx.children.length }, 'controller started');
  // Stopped together: the syncs learn of the stop at once, not after the repair's write in flight.
  return stopTogether([running, repair]);
}
