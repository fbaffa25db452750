/**
 * Runs one DecoratorController: resolves its target and attachment types, takes shared informers for
 * them, routes their events to target keys, and runs the controller loop shared with CompositeController.
 */
import { resourceTypeKey, decoratorFinalizer, groupOf, type DecoratorController, type KubeObject } from '../../api/index.ts';
import { childRefOf } from '../../core/index.ts';
import { childKey } from '../../apply/index.ts';
import { WorkQueue } from '../../engine/index.ts';
import type { InformerLease, ResourceType } from '../../kube/index.ts';
import { runControllerLoop, stopTogether, waitForCaches, type RunningController } from '../controller-loop.ts';
import type { ExpressionSources } from '../expression-sources.ts';
import type { ControllerHookRunners } from '../hook-runners.ts';
import { checkRunnersAndJudge, runnersAndJudge } from '../readiness-judges.ts';
import { resolveResource, type Host } from '../host.ts';
import { createRelatedObjects } from '../related-objects.ts';
import type { DecoratorContext } from './context.ts';
import { attachmentHandler, isDecorated, targetHandler } from './route-events.ts';
import { targetAt, targetKey, targetKeyId, type TargetKey } from './target-key.ts';
import { livePorts } from './live-ports.ts';
import { syncTarget } from '../../sync/decorator-sync.ts';
import { childFilter, parentFilter, reconcilesParent } from '../shard-scope.ts';
import { controlledByOneOf, startShardLabelRepair } from '../shard-label-repair.ts';

const CONTROLLER_TYPE = 'DecoratorController';

/**
 * The types `spec` names, resolved through discovery (`ResourceNotFoundError` for one it does not
 * serve; a target type named twice is refused), and the attachment types for the readiness judge.
 */
export function decoratorTypes(host: Host, spec: DecoratorController['spec']) {
  const targetTypes = spec.resources.map((rule, i) => ({ rule, type: resolveResource(host, rule.apiVersion, rule.resource, `spec.resources[${i}].resource`) }));
  refuseRepeatedTypes(targetTypes.map((t) => t.type));
  const attachmentTypes = spec.attachments.map((rule, i) => ({ rule, type: resolveResource(host, rule.apiVersion, rule.resource, `spec.attachments[${i}].resource`) }));
  // Attachment types have no readyWhen of their own; an attachment's annotation still counts.
  const judgedTypes = attachmentTypes.map((a, i) => ({ ...a.type, field: `spec.attachments[${i}].readyWhen` }));
  return { targetTypes, attachmentTypes, judgedTypes };
}

/**
 * Builds what a start of `controller` builds before it watches anything (its types from discovery, its
 * hook runners, its readiness judge) and lets go of it: throws what that start would throw there.
 */
export async function checkDecoratorController(host: Host, controller: DecoratorController, sources: ExpressionSources): Promise<void> {
  const { spec } = controller;
  const { judgedTypes } = decoratorTypes(host, spec);
  await checkRunnersAndJudge(host, { hooks: spec.hooks, endpointConfigs: spec.endpointConfigs, controller: { controller: controller.name, type: CONTROLLER_TYPE } }, sources, judgedTypes);
}

/**
 * Starts `controller`. Throws `ResourceNotFoundError` while discovery lacks a named resource and a
 * timeout when its caches do not fill — both retried by the caller — and any hook-construction error.
 */
export async function startDecoratorController(
  host: Host, controller: DecoratorController, signal: AbortSignal, sources: ExpressionSources,
): Promise<RunningController> {
  const { spec } = controller;
  const labels = { controller: controller.name, type: CONTROLLER_TYPE };
  const logger = host.logger.child({ controller: `${CONTROLLER_TYPE}/${controller.name}` });
  const { targetTypes, attachmentTypes, judgedTypes } = decoratorTypes(host, spec);
  const { runners, readiness } = await runnersAndJudge(host, { hooks: spec.hooks, endpointConfigs: spec.endpointConfigs, controller: labels }, sources, judgedTypes);
  const customizeRunner = runners.customize;

  const targetLeases = targetTypes.map((t) => host.informers.acquire(t.type, undefined, parentFilter(host)));
  const attachmentLeases = attachmentTypes.map((a) => host.informers.acquire(a.type, undefined, childFilter(host)));
  const queue = new WorkQueue<TargetKey>({ clock: host.clock, keyOf: targetKeyId });
  const targets = targetTypes.map((t, i) => ({ ...t, store: targetLeases[i]!.informer.store }));
  const ctx: DecoratorContext = {
    host, controller, labels, logger, runners, readiness, targets,
    attachments: attachmentTypes.map((a, i) => ({ ...a, store: attachmentLeases[i]!.informer.store })),
    related: customizeRunner && createRelatedObjects({
      host, controller: controller.object, hook: spec.hooks.customize!, runner: customizeRunner, enqueue: (key) => queue.add(key), logger,
      parentKey: (obj) => targetKey(targets.find((t) => t.type.kind === obj.kind && groupOf(t.type.apiVersion) === groupOf(obj.apiVersion))!.type, obj),
      keyId: targetKeyId,
    }),
    finalizer: decoratorFinalizer(controller.name),
    records: new Map(),
  };
  await waitForCaches(host, [...targetLeases, ...attachmentLeases, ...runners.caches()], signal).catch((err: unknown) => {
    runners.release();
    throw err;
  });
  return run(ctx, { targets: targetLeases, attachments: attachmentLeases }, queue, runners);
}

/**
 * One rule per target type: queue keys name the type, so a second rule for the same type could never
 * decide an object on its own. Metacontroller keys selectors by group and kind the same way.
 */
function refuseRepeatedTypes(types: readonly ResourceType[]): void {
  const seen = new Map<string, number>();
  types.forEach((type, i) => {
    const first = seen.get(resourceTypeKey(type));
    if (first !== undefined) throw new Error(`spec.resources[${first}] and spec.resources[${i}] name the same type ${resourceTypeKey(type)}: merge them into one rule`);
    seen.set(resourceTypeKey(type), i);
  });
}

function run(ctx: DecoratorContext, leases: { targets: InformerLease[]; attachments: InformerLease[] }, queue: WorkQueue<TargetKey>, runners: ControllerHookRunners): RunningController {
  const enqueue = (key: TargetKey) => queue.add(key);
  const unsubscribe = [
    ...ctx.targets.map((target, i) => leases.targets[i]!.informer.subscribe(targetHandler(ctx, target, enqueue))),
    ...leases.targets.map((lease) => lease.informer.subscribe({ onDelete: (obj) => ctx.related?.forget(obj) })),
    ...leases.attachments.map((lease) => lease.informer.subscribe(attachmentHandler(ctx, enqueue))),
    // A deleted attachment's apply record can never match again; drop it so the map does not grow forever.
    ...leases.attachments.map((lease) => lease.informer.subscribe({ onDelete: (obj) => ctx.records.delete(childKey(childRefOf(obj))) })),
  ];
  const period = ctx.controller.spec.resyncPeriodSeconds;
  const running = runControllerLoop({
    circuits: runners.circuits,
    host: ctx.host, labels: ctx.labels, logger: ctx.logger, queue, keyName: targetKeyId,
    reconcile: async (key, signal, logger) => {
      const { target, cached } = targetAt(ctx.targets, key);
      if (target && cached && isDecorated(ctx, target, cached) && !(await reconcilesParent(ctx.host, target.type, cached, signal))) return {};
      return syncTarget(ctx, livePorts({ ...ctx, logger }), key, signal);
    },
    keys: () => ctx.targets.flatMap((target) => target.store.list().filter((obj) => isDecorated(ctx, target, obj)).map((obj) => targetKey(target.type, obj))),
    objectOf: (key) => targetAt(ctx.targets, key).cached,
    resyncPeriodMs: period === undefined ? undefined : period * 1000,
    release() {
      for (const off of unsubscribe) off();
      ctx.related?.stop();
      runners.release();
      for (const lease of [...leases.targets, ...leases.attachments]) lease.release();
    },
  });
  const repair = startShardLabelRepair(ctx.host, [
    ...ctx.targets.map((target, i) => ({ lease: leases.targets[i]!, role: 'parent' as const, concerns: (obj: KubeObject) => isDecorated(ctx, target, obj) })),
    ...leases.attachments.map((lease) => ({ lease, role: 'child' as const, concerns: controlledByOneOf(ctx.targets.map((t) => t.type)) })),
  ], ctx.logger);
  ctx.logger.info({ targets: ctx.targets.length, attachments: ctx.attachments.length }, 'controller started');
  // Stopped together: the syncs learn of the stop at once, not after the repair's write in flight.
  return stopTogether([running, repair]);
}
