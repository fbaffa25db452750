/**
 * Runs the controller objects themselves: watches CompositeControllers and DecoratorControllers and
 * keeps one controller running per object that matches `--target-label-selector`, restarting it when its spec (generation) or a
 * ConfigMap-held expression changes and stopping it when the object goes. A controller that cannot
 * start gets a `CreateError` event and a `Ready=False` condition saying why (loom's addition:
 * Metacontroller leaves the status empty); one that runs gets `Ready=True`, with reason
 * `StartedWithWarnings` and a `SpecWarning` event when it runs other than its spec says (a value
 * raised to its minimum, a parent type without a status subresource). A resource discovery does not
 * serve yet is retried with backoff and never given up on (a controller may be applied together with
 * the CRD it names); its retries say `Starting` once, not once per attempt. Of two CompositeControllers that would sync the same parents
 * (`core/parent-owner.ts`), only the one that started first runs; the other gets `Ready=False` (reason
 * `ParentTypeTaken`) naming it, and starts once that one stops. A running controller whose object
 * changes into a version that cannot start keeps running its last good spec (`last-good-spec.ts`).
 */
import {
  boundedJoin, GROUP_VERSION, groupOf, matchesSelector, parseCompositeController, parseDecoratorController,
  type CompositeController, type DecoratorController, type FieldProblem, type Hook, type KubeObject, type LabelSelector, type ParseResult,
} from '../api/index.ts';
import { errorChain, runWorkers, TerminalError, WorkQueue, type ReconcileResult } from '../engine/index.ts';
import { conflictingClaim, isBuiltInGroup, sameParentType, type ParentClaim } from '../core/index.ts';
import { checkCompositeController, startCompositeController } from './composite/composite-controller.ts';
import { checkDecoratorController, startDecoratorController } from './decorator/decorator-controller.ts';
import { stopTogether, type RunningController } from './controller-loop.ts';
import { controllerWriter } from './controller-writer.ts';
import { configMapRefsOf, createExpressionSources, type ExpressionSources } from './expression-sources.ts';
import { announceRunning, notReady, notReadyReason } from './controller-status.ts';
import { keepsLastGood, specProblems, type SpecVersion } from './last-good-spec.ts';
import { startSyncFailureReport, type StartedSyncFailureReport } from './syncs-failing-report.ts';
import { JsonataCompileError } from '../hooks/index.ts';
import { resolveResource, ResourceNotFoundError, type Host } from './host.ts';
import { ReferenceNotAllowedError } from './reference-policy.ts';

/** Settings of the meta controller. */
export interface MetaControllerOptions {
  host: Host;
  /** `--target-label-selector`: only controller objects matching it are run by this instance. */
  targetSelector?: LabelSelector | undefined;
}

const META_WORKERS = 4;

/** One kind of controller object: how to read it and how to run it. */
interface ControllerKind<C extends { spec: { hooks: ControllerHooks } }> {
  kind: string;
  resource: string;
  parse(obj: unknown): ParseResult<C>;
  start(host: Host, controller: C, signal: AbortSignal, sources: ExpressionSources): Promise<RunningController>;
  /** Throws what `start` would before it watches anything: a running controller is replaced only by a spec that passes. */
  check(host: Host, controller: C, sources: ExpressionSources): Promise<void>;
  /** The parents the controller claims, for kinds that may have only one controller per parent. */
  claimOf?(controller: C, obj: KubeObject): ParentClaim;
  /** What a started controller does differently from what its spec asks, as discovery shows. */
  warningsOf?(host: Host, controller: C): FieldProblem[];
}

interface ControllerHooks {
  sync?: Hook | undefined;
  finalize?: Hook | undefined;
  customize?: Hook | undefined;
}

const COMPOSITE = {
  kind: 'CompositeController', resource: 'compositecontrollers', parse: parseCompositeController, start: startCompositeController, check: checkCompositeController,
  claimOf: (controller, obj) => {
    const { apiVersion, resource, labelSelector } = controller.spec.parentResource;
    return { name: obj.metadata.name ?? '', apiVersion, resource, selector: labelSelector };
  },
  warningsOf: (host, controller) => {
    const { apiVersion, resource } = controller.spec.parentResource;
    // A built-in type's status is Kubernetes' own, not the controller's: nothing to say there. A type
    // discovery does not serve is the start's to report, with its field path.
    const type = host.discovery().byResource(apiVersion, resource);
    if (isBuiltInGroup(groupOf(apiVersion)) || !type || type.subresources.includes('status')) return [];
    return [{ path: 'spec.parentResource.resource', message: `${resource}.${apiVersion} has no status subresource: its parents are synced, but the hook's status is never written` }];
  },
} satisfies ControllerKind<CompositeController>;
const DECORATOR = {
  kind: 'DecoratorController', resource: 'decoratorcontrollers', parse: parseDecoratorController, start: startDecoratorController, check: checkDecoratorController,
} satisfies ControllerKind<DecoratorController>;

/** A started controller and the spec it was started with. */
interface Running extends SpecVersion {
  controller: RunningController;
}

/** Watches CompositeControllers and DecoratorControllers until `signal` aborts, then stops every running controller. */
export async function runMetaController(options: MetaControllerOptions, signal: AbortSignal): Promise<void> {
  await Promise.all([runKind(options, COMPOSITE, signal), runKind(options, DECORATOR, signal)]);
}

/** Runs the controller objects of one kind. */
async function runKind<C extends { spec: { hooks: ControllerHooks } }>(options: MetaControllerOptions, kind: ControllerKind<C>, signal: AbortSignal): Promise<void> {
  const { host } = options;
  const type = await waitForResource(host, kind.resource, signal);
  if (!type) return;
  const lease = host.informers.acquire(type);
  const running = new Map<string, Running>();
  /** The spec each controller last failed to start with: its retries say `Starting` only once. */
  const failedStarts = new Map<string, SpecVersion>();
  /** The version each running controller was last refused for: a status write of its object builds nothing again. */
  const refused = new Map<string, SpecVersion>();
  const queue = new WorkQueue({ clock: host.clock });
  const sourceChanged = new Set<string>();
  const sources = createExpressionSources(host, (name) => {
    sourceChanged.add(name);
    queue.add(name);
  });
  const off = lease.informer.subscribe({
    onAdd: (o) => queue.add(o.metadata.name ?? ''),
    onUpdate: (_p, o) => queue.add(o.metadata.name ?? ''),
    onDelete: (o) => queue.add(o.metadata.name ?? ''),
  });
  const claims = new Map<string, ParentClaim>();
  /** Controllers refused because another one claims their parents: what they wait for. */
  const blocked = new Map<string, ParentClaim>();
  // A controller that stops frees its parents: the controllers refused for them try again. Only those:
  // waking every controller of the type would let two that fail to start wake each other forever.
  const unclaim = (name: string): void => {
    const claim = claims.get(name);
    if (!claim || !claims.delete(name)) return;
    for (const [waiting, wanted] of blocked) {
      if (!sameParentType(wanted, claim)) continue;
      blocked.delete(waiting);
      queue.add(waiting);
    }
  };
  const reconcile = (name: string, reconcileSignal: AbortSignal): Promise<ReconcileResult> => reconcileController({
    ...options, kind, running, failedStarts, refused, sources, sourceChanged, signal: reconcileSignal, get: () => lease.informer.store.get(name), claims, blocked, unclaim,
  }, name);
  await runWorkers({
    // Several workers, so one controller whose start is slow (caches not filling) never holds up the others.
    queue, workers: META_WORKERS, signal, clock: host.clock, reconciler: { reconcile },
    // A start cut short by the stop (a shutdown, a shard handover) is not a controller's fault.
    onOutcome: (o) => o.error !== undefined && !signal.aborted && host.logger.warn({ controller: o.key, err: o.error }, 'controller not running'),
  });
  off();
  const stopped = await Promise.allSettled([...running.values()].map((started) => started.controller.stop()));
  for (const end of stopped) if (end.status === 'rejected') host.logger.warn({ err: end.reason as unknown }, 'a controller failed to stop cleanly');
  sources.release();
  lease.release();
}

/** Waits until discovery serves loom's own CRD (it may be installed after loom starts). */
async function waitForResource(host: Host, resource: string, signal: AbortSignal) {
  for (let warned = false; !signal.aborted; warned = true) {
    try {
      return resolveResource(host, GROUP_VERSION, resource);
    } catch (err) {
      if (!warned) host.logger.warn({ err }, `waiting for the ${resource}.${GROUP_VERSION} CRD (run "loom install-crds")`);
      await host.clock.sleep(1000, signal).catch(() => undefined);
      await host.refreshDiscovery().catch(() => undefined);
    }
  }
  return undefined;
}

interface ReconcileInput<C extends { spec: { hooks: ControllerHooks } }> extends MetaControllerOptions {
  kind: ControllerKind<C>;
  running: Map<string, Running>;
  failedStarts: Map<string, SpecVersion>;
  refused: Map<string, SpecVersion>;
  sources: ExpressionSources;
  /** Controllers whose ConfigMap-held expression changed since they started. */
  sourceChanged: Set<string>;
  signal: AbortSignal;
  get(): KubeObject | undefined;
  /** The parents each started (or starting) controller claims, by name. */
  claims: Map<string, ParentClaim>;
  /** Controllers refused for another's claim, with their own claim, by name. */
  blocked: Map<string, ParentClaim>;
  /** Drops a controller's claim, queueing those that wait for its parents. */
  unclaim(name: string): void;
}

function isWanted(input: MetaControllerOptions, obj: KubeObject | undefined): obj is KubeObject {
  return obj !== undefined && (input.targetSelector === undefined || matchesSelector(input.targetSelector, obj.metadata.labels));
}

/** Stops the running controller when its object is gone, no longer targeted, has a new spec or a changed expression. */
async function stopIfStale<C extends { spec: { hooks: ControllerHooks } }>(input: ReconcileInput<C>, name: string, obj: KubeObject | undefined): Promise<void> {
  const current = input.running.get(name);
  const sourceChanged = input.sourceChanged.delete(name);
  if (!current) return;
  const same = isWanted(input, obj) && current.uid === obj.metadata.uid && current.generation === obj.metadata.generation;
  if (same && !sourceChanged) return;
  if (obj) input.host.events.record(obj, { type: 'Normal', reason: 'Stopping', message: 'Stopping controller' });
  try {
    await current.controller.stop();
  } finally {
    // Even a stop that failed has ended its workers and released its informers (stopTogether): the
    // parent type is free, and a retry starts the controller afresh rather than stopping it twice.
    input.running.delete(name);
    input.unclaim(name);
  }
  if (obj) input.host.events.record(obj, { type: 'Normal', reason: 'Stopped', message: 'Stopped controller' });
}

async function reconcileController<C extends { spec: { hooks: ControllerHooks } }>(input: ReconcileInput<C>, name: string): Promise<ReconcileResult> {
  const obj = input.get();
  const parsed = isWanted(input, obj) ? input.kind.parse(obj) : undefined;
  input.sources.track(name, parsed?.ok ? configMapRefsOf(parsed.value.spec.hooks) : []);
  if (await keepsLastGood(input, name, obj, parsed)) return {};
  await stopIfStale(input, name, obj);
  if (!isWanted(input, obj) || !parsed) {
    input.blocked.delete(name);
    input.failedStarts.delete(name);
    input.refused.delete(name);
    return {};
  }
  if (!parsed.ok) return refuseInvalid(input, name, obj, parsed.problems);
  await yieldToOwner(input, name, obj, parsed.value);
  if (input.running.has(name)) return {};
  await startEngine(input, name, obj, parsed);
  return {};
}

/** An invalid spec with no controller running: `Ready=False` (`InvalidSpec`), and nothing to retry until it changes. */
async function refuseInvalid<C extends { spec: { hooks: ControllerHooks } }>(
  input: ReconcileInput<C>, name: string, obj: KubeObject, problems: readonly FieldProblem[],
): Promise<ReconcileResult> {
  if (input.running.has(name)) return {};
  const message = specProblems(problems);
  await notReady(input.host, obj, { reason: 'InvalidSpec', message });
  throw new TerminalError(`invalid ${input.kind.kind} ${name}: ${message}`);
}

/**
 * Never starts a controller while a running (or starting) one claims parents it would claim: it gets
 * `Ready=False` naming that one, and is queued again when that one stops (a TerminalError until then,
 * as nothing else can help). Otherwise the claim is taken before anything is awaited, so two
 * controllers reconciled at once cannot both take it.
 */
async function yieldToOwner<C extends { spec: { hooks: ControllerHooks } }>(input: ReconcileInput<C>, name: string, obj: KubeObject, controller: C): Promise<void> {
  if (!input.kind.claimOf) return;
  const claim = input.kind.claimOf(controller, obj);
  const owner = conflictingClaim(claim, input.claims.values());
  if (owner === undefined) {
    input.blocked.delete(name);
    input.claims.set(name, claim);
    return;
  }
  input.blocked.set(name, claim);
  const message = `${input.kind.kind} ${owner.name} already syncs parents of ${owner.resource}.${owner.apiVersion} that this controller's parent selector matches; one controller per parent`;
  await notReady(input.host, obj, { reason: 'ParentTypeTaken', message });
  throw new TerminalError(`${input.kind.kind} ${name}: ${message}`);
}

async function startEngine<C extends { spec: { hooks: ControllerHooks } }>(
  input: ReconcileInput<C>, name: string, obj: KubeObject, parsed: { value: C; warnings: FieldProblem[] },
): Promise<void> {
  const { host } = input;
  const version = { uid: obj.metadata.uid, generation: obj.metadata.generation };
  if (!sameSpec(input.failedStarts.get(name), version)) host.events.record(obj, { type: 'Normal', reason: 'Starting', message: 'Starting controller' });
  let warnings: FieldProblem[];
  let syncFailures: StartedSyncFailureReport;
  try {
    // Before the start: once the controller runs, a failure here could no longer be retried.
    warnings = [...parsed.warnings, ...(input.kind.warningsOf?.(host, parsed.value) ?? [])];
    // Writes of its own, which end with it (controller-writer.ts).
    const own = controllerWriter(host, `${input.kind.kind}/${name}`, input.signal);
    syncFailures = startSyncFailureReport({ host: own.host, get: () => input.get(), signal: own.signal });
    const controller = await input.kind.start({ ...own.host, syncFailures }, parsed.value, input.signal, input.sources).catch((err: unknown) => {
      own.stop();
      throw err;
    });
    input.running.set(name, { ...version, controller: stopTogether([{ stop: () => Promise.resolve(own.stop()) }, controller]) });
  } catch (err) {
    input.unclaim(name);
    input.failedStarts.set(name, version);
    await notReady(input.host, obj, { reason: notReadyReason(err), message: boundedJoin(errorChain(err), ': ') });
    // A resource missing from discovery may be a CRD applied a moment ago: look again before the retry.
    if (err instanceof ResourceNotFoundError) await host.refreshDiscovery().catch(() => undefined);
    // An expression that does not compile stays broken until the spec or its ConfigMap changes, and
    // either change queues this controller again: no point retrying before.
    // So does a reference outside --reference-namespaces.
    const permanent = err instanceof JsonataCompileError || err instanceof ReferenceNotAllowedError;
    throw permanent ? new TerminalError(err.message, { cause: err }) : err;
  }
  input.failedStarts.delete(name);
  host.events.record(obj, { type: 'Normal', reason: 'Started', message: 'Started controller' });
  await announceRunning(host, obj, warnings);
  syncFailures.open();
}

function sameSpec(a: SpecVersion | undefined, b: SpecVersion): boolean {
  return a !== undefined && a.uid === b.uid && a.generation === b.generation;
}
