/**
 * `loom render`: runs a controller's hooks for one parent, offline, and prints what loom would do —
 * the desired children completed as loom applies them, the status, and with `--observed` the plan
 * per child and a field-level diff. No cluster is needed; the hooks run as they would under loom
 * (JSONata in evaluator processes with loom's time budget and memory limit, a webhook at its `url`,
 * or a hook module loaded with `--hook-module`).
 *
 * Output: one YAML document on stdout (keys documented in {@link RENDER_USAGE}); notes and warnings
 * on stderr as `note: …` and `warning: <file>: <path>: …`. Exit codes: 0 rendered, 1 a problem with
 * an input file (`<file>: <path>: <message>`, every problem at once) or a hook (its message), 2 bad
 * flags.
 */
import { readFile } from 'node:fs/promises';
import { dump } from 'js-yaml';
import type { KubeObject } from '../api/index.ts';
import type { ApplyStrategy } from '../core/index.ts';
import { systemClock, type Clock } from '../engine/index.ts';
import type { EvaluatorPool, EvaluatorPoolOptions } from '../hooks/index.ts';
import { withJsonataEvaluators } from '../jsonata-evaluators.ts';
import { formatError } from './format-error.ts';
import { commandOptions } from './command-options.ts';
import { FlagError, parseGoFlags, type FlagSpec } from './go-flags.ts';
import { renderComposite } from '../offline/render-composite.ts';
import type { RenderContext, RenderReport } from '../offline/render-context.ts';
import { renderDecorator } from '../offline/render-decorator.ts';
import { RenderError, throwIfAny } from '../offline/render-error.ts';
import { renderRunners } from '../offline/render-hooks.ts';
import { loadController, loadObjects, loadParent, type LoadedController } from '../offline/render-inputs.ts';
import { loadHookModule, type InjectableApp } from '../offline/render-module-hook.ts';
import { declaredScope, typeCatalog } from '../offline/render-types.ts';
import type { ReadTextFile } from './validate.ts';

/** The help text of `loom render`. */
export const RENDER_USAGE = `usage: loom render --controller FILE --parent FILE [--observed FILE] [--related FILE]
                   [--hook-module FILE] [--apply-strategy server-side-apply|dynamic-apply]

Runs a CompositeController's or DecoratorController's hooks for one parent, offline, and prints
what loom would do, as YAML.

  --controller FILE   the controller manifest (may also hold CRDs, which tell render the kinds)
  --parent FILE       the parent object (a DecoratorController's target)
  --observed FILE     existing children or attachments (YAML stream or List): adds a plan per
                      child (create, update (InPlace), recreate (Recreate), left alone (OnDelete),
                      delete, unchanged) with a field-level diff
  --related FILE      objects the customize hook's rules pick from (YAML stream or List)
  --hook-module FILE  a module whose default export is a fastify app, an { app } object, or a
                      function returning either; webhook hooks are called through app.inject
                      at the webhook's path instead of over the network
  --apply-strategy    how updates are judged, as loom's flag [server-side-apply]

Output (YAML on stdout; notes on stderr): hook (sync or finalize), finalizer (a change loom makes),
related (objects the customize rules picked), children with status (observedGeneration set) for a
CompositeController, or labels, annotations, status (null: left alone), targetChanges and
attachments for a DecoratorController; resyncAfterSeconds, finalized, claims (observed objects
loom adopts, releases or ignores), plan; when children use waves or dependsOn, or the controller sets
spec.readyCondition: the Ready condition in status, readiness (each desired child's wave and
readiness) and held (what a sync would hold, and what for). Exit 1 names the file and field, or the
failing hook.
`;

const RENDER_FLAGS: FlagSpec = {
  controller: 'string', parent: 'string', observed: 'string', related: 'string', 'hook-module': 'string', 'apply-strategy': 'string', h: 'bool', help: 'bool',
};

/** Where `loom render` reads and writes; tests pass their own. */
export interface RenderIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Defaults to reading the file as UTF-8. */
  readTextFile?: ReadTextFile | undefined;
  /** What `--hook-module` is relative to; defaults to the process's working directory. */
  cwd?: string | undefined;
  /** Bounds JSONata and module hooks; defaults to the system clock. */
  clock?: Clock | undefined;
  /** Starts one JSONata evaluator process (tests watch the PIDs with it); defaults to loom's. */
  startEvaluator?: EvaluatorPoolOptions['start'];
}

/** The flags of one render. */
export interface RenderOptions {
  controller: string;
  parent: string;
  observed?: string | undefined;
  related?: string | undefined;
  hookModule?: string | undefined;
  applyStrategy: ApplyStrategy;
}

/** Reads the flags; `help` for `-h`/`--help`. Throws {@link FlagError} for anything wrong. */
export function renderOptions(args: readonly string[]): RenderOptions | 'help' {
  const { values, positionals } = parseGoFlags(args, RENDER_FLAGS);
  if (values.get('h') === 'true' || values.get('help') === 'true') return 'help';
  if (positionals.length > 0) throw new FlagError(`unexpected argument '${positionals[0]}'`);
  const controller = values.get('controller');
  const parent = values.get('parent');
  if (!controller || !parent) throw new FlagError('--controller and --parent are required');
  const applyStrategy = values.get('apply-strategy') ?? 'server-side-apply';
  if (applyStrategy !== 'server-side-apply' && applyStrategy !== 'dynamic-apply') {
    throw new FlagError(`--apply-strategy: "${applyStrategy}" is not one of server-side-apply, dynamic-apply`);
  }
  return { controller, parent, observed: values.get('observed'), related: values.get('related'), hookModule: values.get('hook-module'), applyStrategy };
}

interface Inputs {
  loaded: LoadedController;
  parent: KubeObject;
  observed: KubeObject[] | undefined;
  related: KubeObject[] | undefined;
}

/** A file read, or what is wrong with it. */
type Attempt<T> = { value: T } | { problem: string };

async function attempt<T>(load: Promise<T>): Promise<Attempt<T>> {
  try {
    return { value: await load };
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    return { problem: error.message };
  }
}

function valueOf<T>(read: Attempt<T>): T {
  if ('problem' in read) throw new RenderError(read.problem);
  return read.value;
}

/** Reads every input file; the problems of all of them are reported together, in flag order. */
async function readInputs(options: RenderOptions, read: ReadTextFile, notes: string[]): Promise<Inputs> {
  const objects = (file: string | undefined) => attempt(file === undefined ? Promise.resolve(undefined) : loadObjects(file, read));
  const [loaded, parent, observed, related] = await Promise.all([
    attempt(loadController(options.controller, read)), attempt(loadParent(options.parent, read)), objects(options.observed), objects(options.related),
  ]);
  throwIfAny([loaded, parent, observed, related].flatMap((a) => ('problem' in a ? [a.problem] : [])));
  notes.push(...valueOf(loaded).warnings, ...valueOf(parent).notes);
  return { loaded: valueOf(loaded), parent: valueOf(parent).parent, observed: valueOf(observed), related: valueOf(related) };
}

/**
 * The parent in namespace `default` when it names none and its type is not known to be cluster-scoped:
 * example files usually leave the namespace out, and `kubectl apply` would put a namespaced object there.
 */
function parentWithNamespace(inputs: Inputs, parentFile: string, notes: string[]): KubeObject {
  const { parent, loaded } = inputs;
  if (parent.metadata.namespace) return parent;
  const rules = loaded.kind === 'composite' ? [loaded.controller.spec.parentResource] : loaded.controller.spec.resources;
  const namespaced = declaredScope(loaded.crds, rules.filter((rule) => rule.apiVersion === parent.apiVersion), parent.kind);
  if (namespaced === false) return parent;
  const unsure = namespaced === undefined ? ' (if its type is cluster-scoped, put its CRD in the controller file)' : '';
  notes.push(`${parentFile}: metadata.namespace is not set; using "default", as kubectl does${unsure}`);
  return { ...parent, metadata: { ...parent.metadata, namespace: 'default' } };
}

/**
 * Renders the controller's hooks for the parent; notes for the user are pushed onto `notes`. JSONata
 * hooks run in evaluator processes of its own, all killed (by PID) before it returns.
 */
export async function render(options: RenderOptions, io: RenderIO, notes: string[]): Promise<RenderReport> {
  const read = await readInputs(options, io.readTextFile ?? ((path) => readFile(path, 'utf8')), notes);
  const inputs = { ...read, parent: parentWithNamespace(read, options.parent, notes) };
  const clock = io.clock ?? systemClock;
  const app = options.hookModule === undefined ? undefined : await loadHookModule(options.hookModule, io.cwd ?? '.');
  return withJsonataEvaluators({ clock, start: io.startEvaluator }, (evaluators) => renderWith({ options, inputs, app, clock, evaluators }, notes));
}

/** What one render runs with, once its files are read and its evaluators started. */
interface RenderRun {
  options: RenderOptions;
  inputs: Inputs;
  app: InjectableApp | undefined;
  clock: Clock;
  evaluators: EvaluatorPool;
}

async function renderWith(run: RenderRun, notes: string[]): Promise<RenderReport> {
  const { options, inputs, app, clock, evaluators } = run;
  const { loaded } = inputs;
  const { spec, object } = loaded.controller;
  const runners = renderRunners({ object, hooks: spec.hooks, endpointConfigs: spec.endpointConfigs, where: loaded.where, app, evaluators, clock, notes });
  try {
    const ctx: RenderContext = {
      loaded, parentFile: options.parent, parent: inputs.parent, observed: inputs.observed, related: inputs.related,
      catalog: typeCatalog({ crds: loaded.crds, examples: [inputs.parent, ...(inputs.observed ?? []), ...(inputs.related ?? [])] }),
      runners, applyStrategy: options.applyStrategy, signal: new AbortController().signal, notes,
    };
    return loaded.kind === 'composite' ? await renderComposite(ctx, loaded.controller) : await renderDecorator(ctx, loaded.controller);
  } finally {
    runners.close();
  }
}

/** The report as YAML: absent values left out, long strings never folded. */
export function formatReport(report: RenderReport): string {
  return dump(JSON.parse(JSON.stringify(report)), { lineWidth: -1, noRefs: true });
}

/** Notes and warnings for stderr, one a line. */
export function formatNotes(notes: readonly string[]): string {
  return notes.map((note) => (note.startsWith('warning: ') ? `${note}\n` : `note: ${note}\n`)).join('');
}

/** `loom render ARGS…`: prints the report or the problems; resolves to the exit code. */
export async function runRender(args: readonly string[], io: RenderIO): Promise<number> {
  const options = commandOptions({ name: 'render', parse: renderOptions, usage: RENDER_USAGE }, args, io);
  if ('exit' in options) return options.exit;
  const notes: string[] = [];
  try {
    const report = await render(options, io, notes);
    io.stderr.write(formatNotes(notes));
    io.stdout.write(formatReport(report));
    return 0;
  } catch (error) {
    io.stderr.write(formatNotes(notes));
    io.stderr.write(error instanceof RenderError ? `${error.message}\n` : `loom render: ${formatError(error)}\n`);
    return 1;
  }
}
