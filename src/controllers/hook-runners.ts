/**
 * Builds the runner for a hook spec. Webhooks today; the JSONata runner plugs in here.
 */
import type { Hook } from '../api/index.ts';
import { createWebhookRunner, HookRetryAfterError, webhookUrl, type HookKind, type HookRunner } from '../hooks/index.ts';
import { RetryAfterError } from '../engine/index.ts';
import type { Host } from './host.ts';
import type { ControllerLabels } from '../server/metrics.ts';

/** Which hook of which controller. */
export interface HookIdentity {
  hook: HookKind;
  controller: ControllerLabels;
}

/**
 * A runner for `hook`. A 429 from the hook becomes the engine's {@link RetryAfterError}, so the key
 * is retried after `Retry-After` without counting as a failure.
 */
export function runnerFor(host: Host, spec: Hook, id: HookIdentity): HookRunner {
  if (!spec.webhook) throw new Error(`${id.hook} hook: JSONata hooks are not supported yet`);
  const url = webhookUrl(spec.webhook);
  const runner = createWebhookRunner({
    url,
    timeoutMs: spec.webhook.timeoutMs,
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
