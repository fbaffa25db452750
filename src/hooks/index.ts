/**
 * Hooks: one {@link HookRunner} interface and its implementations. What crosses the boundary: the
 * runner interface, its two error classes (which the engine maps to queue actions), the observer the
 * metrics layer implements, and the webhook runner with its URL resolution.
 */
export { HookError, HookRetryAfterError } from './hook-error.ts';
export { NO_RESPONSE_CODE, type HookObserver, type HookRequestOutcome } from './hook-observer.ts';
export type { HookKind, HookRunner } from './hook-runner.ts';
export {
  createWebhookRunner,
  DEFAULT_MAX_RESPONSE_BYTES,
  type HookClock,
  type WebhookRunnerOptions,
} from './webhook-runner.ts';
export { webhookUrl, type WebhookTarget } from './webhook-url.ts';
