/**
 * The hook runners of one `loom render`: the same runners loom uses, minus what needs a cluster.
 * - JSONata: compiled in-process (a syntax error is reported before anything runs), evaluated in the
 *   isolated evaluator processes `loom run` uses (`hooks/evaluator-pool.ts`), with the same time
 *   budget, heap limit and watchdog, so a runaway expression fails its hook with the bound it hit
 *   instead of taking the command down. A `configMapRef` expression lives in the cluster: an error
 *   asks for the expression inline.
 * - webhook with `url`: POSTed to that URL (the user runs the hook locally). TLS and auth settings
 *   that read a Secret or ConfigMap cannot be honoured offline: the hook is called without them, and
 *   a note says so. An inline CA bundle is used.
 * - webhook with `service`: unreachable offline; an error suggests `url` or `--hook-module`.
 * - with `--hook-module`, every webhook hook (either form) calls the module's app at its path instead.
 */
import { isRecord, type EndpointConfig, type Hook, type KubeObject } from '../api/index.ts';
import type { Clock } from '../engine/index.ts';
import { compileIsolatedJsonataHook, createWebhookRunner, webhookAuthPlan, type EvaluatorPool, type HookKind, type HookRunner, type WebhookRunner, type WebhookSecurity } from '../hooks/index.ts';
import { controllerJudge, type JudgedType } from '../sync/controller-judge.ts';
import type { ReadinessJudge } from '../sync/readiness-judge.ts';
import type { ReadyWhenJudge } from '../sync/ready-when-judge.ts';
import { RenderError } from './render-error.ts';
import { moduleHookRunner, type InjectableApp } from './render-module-hook.ts';

/** The runners of the hooks a controller defines; `close` lets go of webhook agents and drops the expressions from the pool. */
export interface RenderRunners {
  sync?: HookRunner | undefined;
  finalize?: HookRunner | undefined;
  customize?: HookRunner | undefined;
  /**
   * The readiness judge for children of `types` (their `readyWhen` compiled in the same evaluators
   * as the hooks, once for all the parents of a command). Throws a {@link RenderError} naming the
   * field of a `readyWhen` that does not compile.
   */
  judge(types: readonly JudgedType[]): ReadinessJudge;
  close(): void;
}

/** What the runners are built from. */
export interface RenderRunnerOptions {
  /** The controller object as written (for `webhook.url` as written). */
  object: KubeObject;
  hooks: { sync?: Hook | undefined; finalize?: Hook | undefined; customize?: Hook | undefined };
  endpointConfigs: readonly EndpointConfig[];
  /** `cc.yaml: `: how messages about the manifest start. */
  where: string;
  /** The `--hook-module` app, if given. */
  app?: InjectableApp | undefined;
  /** The evaluator processes JSONata hooks run in; the caller starts and closes them. */
  evaluators: EvaluatorPool;
  clock: Clock;
  /** Notes for the user (settings render had to leave out). */
  notes: string[];
}

const HOOK_KINDS: readonly HookKind[] = ['sync', 'finalize', 'customize'];

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `spec.hooks.<hook>.webhook.url` exactly as written, if it is. */
function writtenUrl(object: KubeObject, hook: HookKind): unknown {
  let node: unknown = object;
  for (const key of ['spec', 'hooks', hook, 'webhook', 'url']) node = isRecord(node) ? node[key] : undefined;
  return node;
}

/** `CompositeController/web`: whose fair share of the evaluators the controller's expressions take, as under `loom run`. */
function ownerOf(object: KubeObject): string {
  return `${object.kind}/${object.metadata.name ?? ''}`;
}

function jsonataRunner(hook: HookKind, spec: NonNullable<Hook['jsonata']>, options: RenderRunnerOptions, closers: (() => void)[]): HookRunner {
  const field = `${options.where}spec.hooks.${hook}.jsonata`;
  if (spec.expression === undefined) {
    const ref = spec.configMapRef;
    throw new RenderError(`${field}.configMapRef: the expression is in ConfigMap ${ref.namespace}/${ref.name} (key ${ref.key}), which render cannot read offline; put it inline as jsonata.expression to render`);
  }
  try {
    const runner = compileIsolatedJsonataHook({ expression: spec.expression, hook, timeoutMs: spec.timeoutMs, clock: options.clock }, options.evaluators, ownerOf(options.object));
    closers.push(() => runner.release());
    return runner;
  } catch (error) {
    // "syntax error at line 2, column 5: …", as `loom validate` reports it.
    throw new RenderError(`${field}.expression: ${messageOf(error).replace(/^.*?JSONata /, '')}`, { cause: error });
  }
}

/** The settings in effect for the webhook, or none (with a note) when they need the cluster. */
function securityOf(hook: HookKind, webhook: NonNullable<Hook['webhook']>, options: RenderRunnerOptions): WebhookSecurity | undefined {
  const { auth, where, kinds } = webhookAuthPlan(hook, webhook, options.endpointConfigs);
  if (kinds.size === 0) return { auth, where };
  options.notes.push(`${options.where}${where}: its TLS and auth settings read a ${[...kinds].join(' and a ')} from the cluster; render calls the ${hook} hook without them`);
  return undefined;
}

function webhookRunner(hook: HookKind, webhook: NonNullable<Hook['webhook']>, options: RenderRunnerOptions): WebhookRunner {
  const field = `${options.where}spec.hooks.${hook}.webhook`;
  if (writtenUrl(options.object, hook) === undefined) {
    throw new RenderError(`${field}.service: a service webhook cannot be reached offline; set webhook.url to where you run the hook (e.g. http://127.0.0.1:8080${webhook.path ?? '/'}) or pass --hook-module`);
  }
  try {
    return createWebhookRunner({ url: webhook.url, timeoutMs: webhook.timeoutMs, hook, clock: options.clock, security: securityOf(hook, webhook, options) });
  } catch (error) {
    throw new RenderError(`${field}.url: ${messageOf(error)}`, { cause: error });
  }
}

/** The path (and query) a module hook is called at. */
function modulePath(hook: HookKind, webhook: NonNullable<Hook['webhook']>, options: RenderRunnerOptions): string {
  if (writtenUrl(options.object, hook) === undefined) return webhook.path ?? '/';
  if (!URL.canParse(webhook.url)) throw new RenderError(`${options.where}spec.hooks.${hook}.webhook.url: "${webhook.url}" is not a valid URL`);
  const url = new URL(webhook.url);
  return `${url.pathname}${url.search}`;
}

/** A judge over the render's evaluators; a `readyWhen` that does not compile is the render's error. */
function judgeFor(types: readonly JudgedType[], options: RenderRunnerOptions): ReadyWhenJudge {
  try {
    return controllerJudge({ evaluators: options.evaluators, clock: options.clock, owner: ownerOf(options.object), types });
  } catch (error) {
    throw new RenderError(`${options.where}${messageOf(error)}`, { cause: error });
  }
}

/**
 * Builds the runners. Throws a {@link RenderError} naming the field for a hook render cannot call,
 * and for `--hook-module` when no hook is a webhook (the module would serve nothing).
 */
export function renderRunners(options: RenderRunnerOptions): RenderRunners {
  const closers: (() => void)[] = [];
  const build = (hook: HookKind): HookRunner | undefined => {
    const spec = options.hooks[hook];
    if (spec?.jsonata) return jsonataRunner(hook, spec.jsonata, options, closers);
    if (!spec?.webhook) return undefined;
    const { app, clock } = options;
    if (app) return moduleHookRunner({ app, hook, path: modulePath(hook, spec.webhook, options), timeoutMs: spec.webhook.timeoutMs, clock });
    const runner = webhookRunner(hook, spec.webhook, options);
    closers.push(() => runner.close());
    return runner;
  };
  const close = (): void => {
    for (const closer of closers) closer();
  };
  const judges = new Map<string, ReadyWhenJudge>();
  const judge = (types: readonly JudgedType[]): ReadinessJudge => {
    const key = JSON.stringify(types);
    const found = judges.get(key);
    if (found !== undefined) return found;
    const made = judgeFor(types, options);
    closers.push(() => made.release());
    judges.set(key, made);
    return made;
  };
  if (options.app && !HOOK_KINDS.some((hook) => options.hooks[hook]?.webhook)) {
    throw new RenderError('--hook-module: the controller has no webhook hook for the module to serve');
  }
  try {
    return { sync: build('sync'), finalize: build('finalize'), customize: build('customize'), judge, close };
  } catch (error) {
    close();
    throw error;
  }
}
