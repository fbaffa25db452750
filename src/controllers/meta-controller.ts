/**
 * Runs the controller objects themselves: watches CompositeControllers and keeps one engine running
 * per object that matches `--target-label-selector`, restarting it when its spec (generation)
 * changes and stopping it when the object goes. A manifest that does not parse, or that names a
 * resource discovery does not serve yet, gets a `CreateError` event; the latter is retried with
 * backoff and never given up on (a controller may be applied together with the CRD it names).
 */
import { GROUP_VERSION, matchesSelector, parseCompositeController, type KubeObject, type LabelSelector } from '../api/index.ts';
import { errorChain, runWorkers, TerminalError, WorkQueue, type ReconcileResult } from '../engine/index.ts';
import { startCompositeController, type RunningController } from './composite/composite-controller.ts';
import { resolveResource, ResourceNotFoundError, type Host } from './host.ts';

/** Settings of the meta controller. */
export interface MetaControllerOptions {
  host: Host;
  /** `--target-label-selector`: only controller objects matching it are run by this instance. */
  targetSelector?: LabelSelector | undefined;
}

const META_WORKERS = 4;

interface Engine {
  uid: string | undefined;
  generation: number | undefined;
  running: RunningController;
}

/** Watches CompositeControllers until `signal` aborts, then stops every engine. */
export async function runMetaController(options: MetaControllerOptions, signal: AbortSignal): Promise<void> {
  const { host } = options;
  const type = await waitForResource(host, 'compositecontrollers', signal);
  if (!type) return;
  const lease = host.informers.acquire(type);
  const engines = new Map<string, Engine>();
  const queue = new WorkQueue({ clock: host.clock });
  const off = lease.informer.subscribe({
    onAdd: (o) => queue.add(o.metadata.name ?? ''),
    onUpdate: (_p, o) => queue.add(o.metadata.name ?? ''),
    onDelete: (o) => queue.add(o.metadata.name ?? ''),
  });
  const reconcile = (name: string, reconcileSignal: AbortSignal): Promise<ReconcileResult> =>
    reconcileController({ ...options, engines, signal: reconcileSignal, get: () => lease.informer.store.get(name) }, name);
  await runWorkers({
    // Several workers, so one controller whose start is slow (caches not filling) never holds up the others.
    queue, workers: META_WORKERS, signal, reconcileSignal: signal, clock: host.clock, reconciler: { reconcile },
    onOutcome: (o) => o.error !== undefined && host.logger.warn({ controller: o.key, err: o.error }, 'controller not running'),
  });
  off();
  await Promise.all([...engines.values()].map((engine) => engine.running.stop()));
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

interface ReconcileInput extends MetaControllerOptions {
  engines: Map<string, Engine>;
  signal: AbortSignal;
  get(): KubeObject | undefined;
}

function isWanted(input: ReconcileInput, obj: KubeObject | undefined): obj is KubeObject {
  return obj !== undefined && (input.targetSelector === undefined || matchesSelector(input.targetSelector, obj.metadata.labels));
}

/** Stops the running engine when its object is gone, no longer targeted, or has a new spec. */
async function stopIfStale(input: ReconcileInput, name: string, obj: KubeObject | undefined): Promise<void> {
  const current = input.engines.get(name);
  if (!current) return;
  const same = isWanted(input, obj) && current.uid === obj.metadata.uid && current.generation === obj.metadata.generation;
  if (same) return;
  if (obj) input.host.events.record(obj, { type: 'Normal', reason: 'Stopping', message: 'Stopping controller' });
  await current.running.stop();
  input.engines.delete(name);
  if (obj) input.host.events.record(obj, { type: 'Normal', reason: 'Stopped', message: 'Stopped controller' });
}

async function reconcileController(input: ReconcileInput, name: string): Promise<ReconcileResult> {
  const { host, engines } = input;
  const obj = input.get();
  await stopIfStale(input, name, obj);
  if (!isWanted(input, obj) || engines.has(name)) return {};
  const parsed = parseCompositeController(obj);
  if (!parsed.ok) {
    const message = parsed.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    host.events.record(obj, { type: 'Warning', reason: 'CreateError', message: `Cannot create new controller: ${message}` });
    throw new TerminalError(`invalid CompositeController ${name}: ${message}`);
  }
  host.events.record(obj, { type: 'Normal', reason: 'Starting', message: 'Starting controller' });
  try {
    engines.set(name, { uid: obj.metadata.uid, generation: obj.metadata.generation, running: await startCompositeController(host, parsed.value, input.signal) });
  } catch (err) {
    host.events.record(obj, { type: 'Warning', reason: 'CreateError', message: `Cannot create new controller: ${errorChain(err).join(': ')}` });
    // A resource missing from discovery may be a CRD applied a moment ago: look again before the retry.
    if (err instanceof ResourceNotFoundError) await host.refreshDiscovery().catch(() => undefined);
    throw err;
  }
  host.events.record(obj, { type: 'Normal', reason: 'Started', message: 'Started controller' });
  return {};
}
