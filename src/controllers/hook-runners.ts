/**
 * Builds the runner for a hook spec: a webhook, or a JSONata expression (inline or from a ConfigMap)
 * compiled once per controller start. A webhook gets the TLS and auth settings in effect for it (its
 * own, else the controller's matching `endpointConfigs[]` entry) and reads their Secrets and ConfigMaps
 * from the shared caches at call time; `release` the runner when the controller stops.
 */
import type { EndpointConfig, Hook } from '../api/index.ts';
import {
  compileIsolatedJsonataHook,
  JsonataCompileError,
  createWebhookRunner,
  webhookAuthPlan,
  HookRetryAfterError,
  webhookUrl,
  DEFAULT_CIRCUIT_POLICY,
  type HookKind,
  type HookRunner,
  type WebhookSecurity,
} from '../hooks/index.ts';
import type { ExpressionSources } from './expression-sources.ts';
import type { InformerLease } from '../kube/index.ts';
import { createConcurrencyLimit, RetryAfterError, type ConcurrencyLimit } from '../engine/index.ts';
import type { Host } from './host.ts';
import type { ControllerLabels } from '../metrics/metrics.ts';
import { checkReferences } from './reference-policy.ts';
import { createHookCircuits, type HookCircuits } from './hook-circuits.ts';
import { tracedRunner } from './traced-ports.ts';
import { createWebhookCredentialSource, type WebhookCredentialSource } from './webhook-secrets.ts';

/** Which hook of which controller. */
export interface HookIdentity {
  hook: HookKind;
  controller: ControllerLabels;
  /** The controller's `spec.endpointConfigs`; absent: none (the webhook's own settings only). */
  endpointConfigs?: readonly EndpointConfig[] | undefined;
  /** The controller's circuit breakers; absent: a webhook has none. */
  circuits?: HookCircuits | undefined;
}

/** A runner that may hold resources (TLS agents, Secret/ConfigMap caches): call `release` once it is no longer used. */
export interface ManagedHookRunner extends HookRunner {
  /** Caches the runner reads at call time (Secrets, ConfigMaps); the controller waits for them at start. */
  readonly caches: readonly InformerLease[];
  /** Lets go of what the runner holds (a webhook's later calls fail). Idempotent. */
  release(): void;
}

/**
 * A runner for a JSONata hook, evaluated in the host's evaluator processes. Throws `JsonataCompileError`
 * (with line and column) for an expression that does not compile: the controller does not start.
 */
async function jsonataRunner(host: Host, spec: Hook, id: HookIdentity, sources: ExpressionSources): Promise<ManagedHookRunner> {
  const jsonata = spec.jsonata!;
  const ref = jsonata.configMapRef;
  if (ref) checkReferences(host.settings.referenceNamespaces, [{ kind: 'ConfigMap', ...ref, setting: `spec.hooks.${id.hook}.jsonata.configMapRef` }]);
  const expression = jsonata.expression ?? (await sources.read(jsonata.configMapRef));
  // The hook metrics' `url` label names where the expression lives, so the series of two JSONata hooks differ.
  const url = ref ? `jsonata:configmap/${ref.namespace}/${ref.name}/${ref.key}` : 'jsonata:inline';
  const observer = host.metrics.hookObserver({ hook: id.hook, url, controller: id.controller });
  let runner;
  try {
    // The controller is the author: its hooks share one fair share of the evaluator processes.
    const owner = `${id.controller.type}/${id.controller.controller}`;
    runner = compileIsolatedJsonataHook({ expression, hook: id.hook, timeoutMs: jsonata.timeoutMs, clock: host.clock, observer }, host.evaluators, owner);
  } catch (err) {
    throw err instanceof JsonataCompileError ? atField(err, `spec.hooks.${id.hook}.jsonata.${ref ? 'configMapRef' : 'expression'}`) : err;
  }
  return { call: (request, signal) => runner.call(request, signal), caches: [], release: () => runner.release() };
}

/** The same compile error, its message starting with the field path of the expression. */
function atField(err: JsonataCompileError, path: string): JsonataCompileError {
  return new JsonataCompileError(`${path}: ${err.message}`, { position: err.position, line: err.line, column: err.column, code: err.code }, { cause: err.cause });
}

/**
 * The runner of any hook spec. Pass the controller's `spec.endpointConfigs` in `id.endpointConfigs`,
 * and call `release()` on the result when the controller stops (or fails to start).
 */
export async function runnerFor(host: Host, spec: Hook, id: HookIdentity, sources: ExpressionSources): Promise<ManagedHookRunner> {
  const runner = spec.jsonata ? await jsonataRunner(host, spec, id, sources) : webhookRunner(host, spec, id);
  return { ...runner, ...tracedRunner(runner, host.tracing, id.hook, { 'loom.hook_type': spec.jsonata ? 'jsonata' : 'webhook' }) };
}

/** The settings in effect for the webhook, and a cache-backed reader when they refer to Secrets or ConfigMaps. */
function securityOf(host: Host, spec: Hook, id: HookIdentity, url: string): { security: WebhookSecurity; source?: WebhookCredentialSource } {
  const { auth, where, refs } = webhookAuthPlan(id.hook, { ...spec.webhook!, url }, id.endpointConfigs ?? []);
  if (refs.length === 0) return { security: { auth, where } };
  checkReferences(host.settings.referenceNamespaces, refs);
  const source = createWebhookCredentialSource(host, refs);
  return { security: { auth, where, reader: source }, source };
}

/**
 * A webhook runner. A 429 from the hook becomes the engine's {@link RetryAfterError}, so the key is
 * retried after `Retry-After` without counting as a failure.
 */
function webhookRunner(host: Host, spec: Hook, id: HookIdentity): ManagedHookRunner {
  const url = webhookUrl(spec.webhook!);
  const { security, source } = securityOf(host, spec, id, url);
  let runner;
  try {
    runner = createWebhookRunner({
      url,
      timeoutMs: spec.webhook!.timeoutMs,
      hook: id.hook,
      clock: host.clock,
      observer: host.metrics.hookObserver({ hook: id.hook, url, controller: id.controller }),
      etag: spec.webhook!.etag,
      security,
      callHeaders: () => host.tracing.outgoingHeaders(),
      circuit: id.circuits?.guard(url),
    });
  } catch (err) {
    source?.release();
    throw err;
  }
  return {
    call: async (request, signal) => {
      try {
        return await runner.call(request, signal);
      } catch (err) {
        if (err instanceof HookRetryAfterError) throw new RetryAfterError(err.message, { retryAfterMs: err.retryAfterMs, cause: err });
        throw err;
      }
    },
    caches: source?.caches ?? [],
    release() {
      runner.close();
      source?.release();
    },
  };
}

/** The hook runners of one controller, built once per start and released together. */
export interface ControllerHookRunners {
  sync?: ManagedHookRunner | undefined;
  finalize?: ManagedHookRunner | undefined;
  customize?: ManagedHookRunner | undefined;
  /** The circuit breakers of the webhooks; the controller loop queues again the parents they skipped. */
  circuits: HookCircuits;
  /** Every cache the runners read at call time. */
  caches(): InformerLease[];
  /** Releases every runner. Idempotent. */
  release(): void;
}

/** What a controller's runners are built from. */
export interface ControllerHooksInput {
  hooks: { sync?: Hook | undefined; finalize?: Hook | undefined; customize?: Hook | undefined };
  endpointConfigs: readonly EndpointConfig[];
  controller: ControllerLabels;
}

/** `runner` whose calls wait for a slot of `limit` first, so the call's timeout starts once it has one. */
function limited(runner: ManagedHookRunner, limit: ConcurrencyLimit): ManagedHookRunner {
  return { ...runner, call: (request, signal) => limit.run(() => runner.call(request, signal), signal) };
}

/**
 * Builds the runners of a controller's sync, finalize and customize hooks. If one cannot be built
 * (an expression that does not compile, a bad webhook URL), those already built are released. Their
 * calls share one cap (`--hook-max-concurrency`) and the webhooks' circuit breakers (`--hook-circuit-*`).
 */
export async function controllerRunners(host: Host, input: ControllerHooksInput, sources: ExpressionSources): Promise<ControllerHookRunners> {
  const circuits = createHookCircuits(host, input.controller, host.settings.hookCircuit ?? DEFAULT_CIRCUIT_POLICY);
  const limit = createConcurrencyLimit(host.settings.hookMaxConcurrency ?? 0);
  const built: ManagedHookRunner[] = [];
  const release = () => {
    for (const runner of built) runner.release();
    circuits.release();
  };
  const build = async (hook: 'sync' | 'finalize' | 'customize') => {
    const spec = input.hooks[hook];
    if (!spec) return undefined;
    const runner = await runnerFor(host, spec, { hook, controller: input.controller, endpointConfigs: input.endpointConfigs, circuits }, sources);
    built.push(runner);
    return limited(runner, limit);
  };
  try {
    const runners = { sync: await build('sync'), finalize: await build('finalize'), customize: await build('customize') };
    return { ...runners, circuits, caches: () => built.flatMap((runner) => runner.caches), release };
  } catch (err) {
    release();
    throw err;
  }
}
