/**
 * Builds the runner for a hook spec: a webhook, or a JSONata expression (inline or from a ConfigMap)
 * compiled once per controller start.
 */
import type { Hook } from '../api/index.ts';
import { compileJsonataHook, createWebhookRunner, HookRetryAfterError, webhookUrl, type HookKind, type HookRunner } from '../hooks/index.ts';
import type { ExpressionSources } from './expression-sources.ts';
import { RetryAfterError } from '../engine/index.ts';
import type { Host } from './host.ts';
import type { ControllerLabels } from '../server/metrics.ts';

/** Which hook of which controller. */
export interface HookIdentity {
  hook: HookKind;
  controller: ControllerLabels;
}

/**
 * A runner for a JSONata hook. Throws `JsonataCompileError` (with line and column) for an expression
 * that does not compile: the controller does not start.
 */
async function jsonataRunner(host: Host, spec: Hook, id: HookIdentity, sources: ExpressionSources): Promise<HookRunner> {
  const jsonata = spec.jsonata!;
  const expression = jsonata.expression ?? (await sources.read(jsonata.configMapRef));
  // The hook metrics' `url` label names where the expression lives, so the series of two JSONata hooks differ.
  const ref = jsonata.configMapRef;
  const url = ref ? `jsonata:configmap/${ref.namespace}/${ref.name}/${ref.key}` : 'jsonata:inline';
  const observer = host.metrics.hookObserver({ hook: id.hook, url, controller: id.controller });
  return compileJsonataHook({ expression, hook: id.hook, timeoutMs: jsonata.timeoutMs, clock: host.clock, observer });
}

/** The runner of any hook spec. */
export async function runnerFor(host: Host, spec: Hook, id: HookIdentity, sources: ExpressionSources): Promise<HookRunner> {
  return spec.jsonata ? jsonataRunner(host, spec, id, sources) : webhookRunner(host, spec, id);
}

/**
 * A webhook runner. A 429 from the hook becomes the engine's {@link RetryAfterError}, so the key is
 * retried after `Retry-After` without counting as a failure.
 */
function webhookRunner(host: Host, spec: Hook, id: HookIdentity): HookRunner {
  const url = webhookUrl(spec.webhook!);
  const runner = createWebhookRunner({
    url,
    timeoutMs: spec.webhook!.timeoutMs,
    hook: id.hook,
    clock: host.clock,
    observer: host.metrics.hookObserver({ hook: id.hook, url, controller: id.controller }),
  });
  return {
    call: async (request, signal) => {
      try {
        return await runner.call(request, signal);
      } catch (err) {
        if (err instanceof HookRetryAfterError) throw new RetryAfterError(err.message, { retryAfterMs: err.retryAfterMs, cause: err });
        throw err;
      }
    },
  };
}
