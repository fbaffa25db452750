/**
 * `loom plan`: what a changed controller would do to a live cluster, without writing anything. It
 * reads the controller's parents (a DecoratorController's targets) and their children (attachments)
 * from the cluster, runs the manifest's hooks — the new ones — for each, and prints per parent what
 * loom would create, update, recreate, leave alone or delete, with a field diff. The sync is loom's
 * own over the render's offline ports (the objects read from the cluster stand in for the files), so
 * the plan decides as `loom run` would.
 *
 * Exit codes: 0 planned (with `--exit-code`: and nothing would change), 2 bad flags (with
 * `--exit-code`: also when something would change), 1 a problem with the manifest, the cluster or a
 * hook.
 */
import { readFile } from 'node:fs/promises';
import { objectKey, resourceTypeKey, type KubeObject, type ResourceRule } from '../api/index.ts';
import type { ApplyStrategy } from '../core/index.ts';
import { systemClock } from '../engine/index.ts';
import {
  createObjectStore, createObjectWriter, createRestClient, discover, isAlreadyExists, KubeApiError, loadKubeConfig, resourcePath,
  type DiscoverySnapshot, type KubeEnvironment, type ReadonlyObjectStore, type RestClient,
} from '../kube/index.ts';
import { commandOptions, type CommandStreams } from './command-options.ts';
import { formatError } from './format-error.ts';
import { FlagError, parseGoFlags, type FlagSpec } from './go-flags.ts';
import { formatNotes, formatReport } from './render.ts';
import { renderComposite } from '../offline/render-composite.ts';
import type { RenderContext, RenderReport } from '../offline/render-context.ts';
import { renderDecorator } from '../offline/render-decorator.ts';
import { RenderError } from '../offline/render-error.ts';
import { renderRunners } from '../offline/render-hooks.ts';
import { withJsonataEvaluators } from '../jsonata-evaluators.ts';
import { loadController, type LoadedController } from '../offline/render-inputs.ts';
import { loadHookModule } from '../offline/render-module-hook.ts';
import type { DryRunApply } from '../offline/render-plan.ts';
import type { RelatedSource } from '../offline/render-related.ts';
import type { ResolvedType, TypeCatalog } from '../offline/render-types.ts';
import { PLAN_USAGE } from './usage.ts';

const PLAN_FLAGS: FlagSpec = {
  controller: 'string', 'hook-module': 'string', kubeconfig: 'string', context: 'string', 'apply-strategy': 'string',
  'apply-strategy-ssa-field-manager': 'string', 'exit-code': 'bool', h: 'bool', help: 'bool',
};

/** The flags of one plan. */
export interface PlanOptions {
  controller: string;
  hookModule?: string | undefined;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  applyStrategy: ApplyStrategy;
  /** The field manager of the dry-run applies, as the running loom's. */
  fieldManager: string;
  exitCode: boolean;
}

/** Where `loom plan` reads and writes. */
export interface PlanIO extends CommandStreams {
  cwd: string;
  /** What chooses the cluster when `--kubeconfig` is not given (the CLI reads it from the environment). */
  environment: KubeEnvironment;
}

/** Reads the flags; `help` for `-h`/`--help`. */
export function planOptions(args: readonly string[]): PlanOptions | 'help' {
  const { values, positionals } = parseGoFlags(args, PLAN_FLAGS);
  if (values.get('h') === 'true' || values.get('help') === 'true') return 'help';
  if (positionals.length > 0) throw new FlagError(`unexpected argument '${positionals[0]}'`);
  const controller = values.get('controller');
  if (!controller) throw new FlagError('--controller is required');
  const applyStrategy = values.get('apply-strategy') ?? 'server-side-apply';
  if (applyStrategy !== 'server-side-apply' && applyStrategy !== 'dynamic-apply') {
    throw new FlagError(`--apply-strategy: "${applyStrategy}" is not one of server-side-apply, dynamic-apply`);
  }
  return {
    controller, hookModule: values.get('hook-module'), kubeconfig: values.get('kubeconfig'), context: values.get('context'),
    applyStrategy, fieldManager: values.get('apply-strategy-ssa-field-manager') ?? 'loom', exitCode: values.get('exit-code') === 'true',
  };
}

/** Types as the cluster's discovery serves them: a plan is of that cluster, whose API server knows its types. */
function liveCatalog(discovery: DiscoverySnapshot): TypeCatalog {
  return { resolve: (rule) => discovery.byResource(rule.apiVersion, rule.resource) };
}

/** Every object of `type`, across namespaces, with its apiVersion and kind (a list leaves them out of its items). */
async function listType(client: RestClient, type: ResolvedType): Promise<KubeObject[]> {
  const list = await client.request<{ items: KubeObject[] }>({ method: 'GET', path: resourcePath({ ...type, subresources: [] }, {}) });
  return list.items.map((item) => ({ ...item, apiVersion: type.apiVersion, kind: type.kind }));
}

/** The type `rule` names, as discovery serves it. */
function typeOf(discovery: DiscoverySnapshot, rule: ResourceRule, where: string): ResolvedType {
  const type = discovery.byResource(rule.apiVersion, rule.resource);
  if (!type) throw new RenderError(`${where}: discovery does not know resource "${rule.resource}" in apiVersion "${rule.apiVersion}"`);
  return type;
}

/** The objects of one type a parent may own, in the store loom's claims read: indexed by owner, orphans by namespace. */
interface OwnedObjects {
  namespaced: boolean;
  store: ReadonlyObjectStore;
}

/**
 * Related objects from the cluster: each type the customize rules name is listed once per plan, across
 * namespaces, and the rules pick from those lists as loom picks from its caches.
 */
function clusterRelated(client: RestClient): RelatedSource {
  const lists = new Map<string, Promise<KubeObject[]>>();
  const listOf = (type: ResolvedType): Promise<KubeObject[]> => {
    const key = resourceTypeKey(type);
    let list = lists.get(key);
    if (!list) lists.set(key, (list = listType(client, type)));
    return list;
  };
  return async (types) => (await Promise.all(types.map(listOf))).flat();
}

/** The parents (targets) and the objects they may own (children, attachments), read from the cluster. */
interface ClusterObjects {
  parents: KubeObject[];
  owned: OwnedObjects[];
}

/** Reads the {@link ClusterObjects} of the controller's rules. */
async function readCluster(client: RestClient, discovery: DiscoverySnapshot, loaded: LoadedController): Promise<ClusterObjects> {
  const where = `${loaded.where}spec`;
  const parentRules = loaded.kind === 'composite' ? [loaded.controller.spec.parentResource] : loaded.controller.spec.resources;
  const ownedRules = loaded.kind === 'composite' ? loaded.controller.spec.childResources : loaded.controller.spec.attachments;
  const [parents, owned] = await Promise.all([
    Promise.all(parentRules.map((rule) => listType(client, typeOf(discovery, rule, where)))).then((lists) => lists.flat()),
    Promise.all(ownedRules.map(async (rule) => {
      const type = typeOf(discovery, rule, where);
      const store = createObjectStore();
      for (const obj of await listType(client, type)) store.upsert(obj);
      return { namespaced: type.namespaced, store };
    })),
  ]);
  return { parents, owned };
}

/**
 * What `parent` may claim, adopt or release, as loom's claim reads its caches: the objects it
 * controls, and the orphans where it could adopt one (its namespace, or any for a cluster-scoped
 * parent). Other parents' objects are left out.
 */
function claimable(owned: readonly OwnedObjects[], parent: KubeObject): KubeObject[] {
  return owned.flatMap(({ namespaced, store }) => [
    ...store.byControllerUid(parent.metadata.uid ?? ''), ...store.orphans(namespaced ? parent.metadata.namespace : undefined),
  ]);
}

/** API answers that say "not now" rather than "not this": the plan fails on them instead of calling the write refused. */
const UNAVAILABLE = [429, 503, 504];

/**
 * loom's apply of one desired object as a server-side dry run: what the API server would store, or its
 * refusal (validation, admission, a forbidden write; an object it cannot even convert answers 500; a
 * create whose name is taken).
 * An unavailable server, or none at all, fails the plan.
 */
function dryRunApply(client: RestClient, discovery: DiscoverySnapshot, fieldManager: string): DryRunApply {
  const writer = createObjectWriter(client, (apiVersion, kind) => {
    const type = discovery.byKind(apiVersion, kind);
    if (!type) throw new RenderError(`the API server does not serve kind ${kind} in ${apiVersion}`);
    return type;
  }, fieldManager);
  return async (desired, create) => {
    try {
      return { result: await writer.apply(desired, { fieldManager, dryRun: true, createOnly: create }) };
    } catch (error) {
      // The claim read every object this parent could own or adopt, so the holder of the name is not its own.
      if (create && isAlreadyExists(error)) return { refused: takenName(desired) };
      if (error instanceof KubeApiError && !UNAVAILABLE.includes(error.status)) return { refused: error.message };
      throw error;
    }
  };
}

/** Why a create is refused when the name is taken, in the words of `loom run`'s failed sync. */
function takenName(desired: KubeObject): string {
  const name = objectKey(desired.metadata.namespace, desired.metadata.name ?? '');
  return `${desired.kind} ${name} already exists and is not this parent's: loom run leaves it alone and fails the sync`;
}

/** What changes for one parent: the plan entries that are not `unchanged`, and a finalizer change. */
function changesOf(report: RenderReport): number {
  const plan = (report.plan as { action: string; refused?: string }[] | undefined) ?? [];
  return plan.filter((entry) => entry.action !== 'unchanged' || entry.refused !== undefined).length + (report.finalizer ? 1 : 0);
}

/** The reports of a plan, and how many changes they hold. */
interface PlanResult {
  reports: Record<string, RenderReport>;
  changes: number;
}

/**
 * Plans every parent; each report is keyed `Kind namespace/name`, and a parent loom would not sync is
 * left out. JSONata hooks run in evaluator processes of its own, all killed (by PID) before it returns.
 */
export async function plan(options: PlanOptions, io: PlanIO, notes: string[]): Promise<PlanResult> {
  const loaded = await loadController(options.controller, (path) => readFile(path, 'utf8'));
  notes.push(...loaded.warnings);
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: options.kubeconfig, context: options.context, environment: io.environment }) });
  const discovery = await discover(client);
  const cluster = await readCluster(client, discovery, loaded);
  const app = options.hookModule === undefined ? undefined : await loadHookModule(options.hookModule, io.cwd);
  const { spec, object } = loaded.controller;
  return withJsonataEvaluators({ clock: systemClock }, async (evaluators) => {
    const runners = renderRunners({ object, hooks: spec.hooks, endpointConfigs: spec.endpointConfigs, where: loaded.where, app, evaluators, clock: systemClock, notes });
    try {
      const base = {
        loaded, related: undefined, catalog: liveCatalog(discovery), runners, applyStrategy: options.applyStrategy, notes,
        dryRun: dryRunApply(client, discovery, options.fieldManager), relatedSource: clusterRelated(client),
      };
      return await planParents(cluster, (parentFile, parent, observed) => ({ ...base, parentFile, parent, observed, signal: new AbortController().signal }));
    } finally {
      runners.close();
    }
  });
}

/** Plans each parent in turn with the context `contextOf` builds for it. */
async function planParents(cluster: ClusterObjects, contextOf: (name: string, parent: KubeObject, observed: KubeObject[]) => RenderContext): Promise<PlanResult> {
  const reports: Record<string, RenderReport> = {};
  let changes = 0;
  for (const parent of cluster.parents) {
    const name = `${parent.kind} ${objectKey(parent.metadata.namespace, parent.metadata.name ?? '')}`;
    const ctx = contextOf(name, parent, claimable(cluster.owned, parent));
    const report = await renderOne(ctx, ctx.loaded);
    if (report === undefined) continue;
    reports[name] = report;
    changes += changesOf(report);
  }
  return { reports, changes };
}

/**
 * One parent's plan; `undefined` for a parent the controller's selectors leave alone. A failure names
 * the parent (a plan covers many), unless it does already.
 */
async function renderOne(ctx: RenderContext, loaded: LoadedController): Promise<RenderReport | undefined> {
  try {
    return loaded.kind === 'composite' ? await renderComposite(ctx, loaded.controller) : await renderDecorator(ctx, loaded.controller);
  } catch (error) {
    // Render refuses a parent the selectors do not match; a plan of the whole cluster just skips it.
    if (error instanceof RenderError && / so loom would not sync this (parent|target)$/.test(error.message)) return undefined;
    if (error instanceof RenderError && !error.message.startsWith(`${ctx.parentFile}: `)) throw new RenderError(`${ctx.parentFile}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** `loom plan ARGS…`: prints the plan per parent, or the problem; resolves to the exit code. */
export async function runPlan(args: readonly string[], io: PlanIO): Promise<number> {
  const options = commandOptions({ name: 'plan', parse: planOptions, usage: PLAN_USAGE }, args, io);
  if ('exit' in options) return options.exit;
  const notes: string[] = [];
  try {
    const { reports, changes } = await plan(options, io, notes);
    io.stderr.write(formatNotes(notes));
    io.stdout.write(formatReport(reports));
    io.stderr.write(`loom plan: ${Object.keys(reports).length} parents, ${changes} changes\n`);
    return options.exitCode && changes > 0 ? 2 : 0;
  } catch (error) {
    io.stderr.write(error instanceof RenderError ? `${error.message}\n` : `loom plan: ${formatError(error)}\n`);
    return 1;
  }
}
