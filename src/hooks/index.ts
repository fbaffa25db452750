/**
 * Hooks: one {@link HookRunner} interface and its implementations. What crosses the boundary: the
 * runner interface, its two error classes (which the engine maps to queue actions), the observer the
 * metrics layer implements, the webhook runner with its URL resolution, and the JSONata runner with
 * its errors (both `HookError`s) and the helpers it binds into every expression.
 */
export { HookCircuitOpenError, HookError, HookRetryAfterError } from './hook-error.ts';
export {
  createCircuitBreaker,
  DEFAULT_CIRCUIT_POLICY,
  type CallVerdict,
  type CircuitBreaker,
  type CircuitPolicy,
  type CircuitState,
  type CircuitTransition,
} from './circuit-breaker.ts';
export type { CircuitGuard } from './circuit-gate.ts';
export { describeStatus, excerpt } from './hook-answer-text.ts';
export { isAnswered, NO_RESPONSE, type HookObserver, type HookRequestOutcome } from './hook-observer.ts';
export type { HookKind, HookRunner } from './hook-runner.ts';
export {
  createWebhookRunner,
  type HookClock,
  type WebhookRunner,
  type WebhookRunnerOptions,
} from './webhook-runner.ts';
export { DEFAULT_MAX_RESPONSE_BYTES } from './response-limit.ts';
export { type WebhookSecurity } from './webhook-transport.ts';
export { webhookAuthPlan, type WebhookAuthPlan, type CredentialKind, type CredentialReader, type CredentialRef } from './webhook-credentials.ts';
export { DEFAULT_ETAG_MAX_BYTES, DEFAULT_ETAG_MAX_ENTRIES } from './etag-cache.ts';
export { webhookUrl, type WebhookTarget } from './webhook-url.ts';
export { REMAINING_TIMEOUT_HEADER } from './webhook-deadline.ts';
export {
  compileJsonataHook,
  DEFAULT_JSONATA_MAX_DEPTH,
  type JsonataHookOptions,
} from './jsonata-runner.ts';
export { locate } from './jsonata-location.ts';
export { createEvaluatorPool, type EvaluatorAnswer, type EvaluatorPool, type EvaluatorPoolOptions } from './evaluator-pool.ts';
export { createEvaluatorService } from './evaluator-service.ts';
export type { EvaluatorRequest } from './evaluator-protocol.ts';
export { compileIsolatedJsonataHook, type IsolatedJsonataHook } from './isolated-jsonata-runner.ts';
export { compileReadyWhen, type ReadyWhen, type ReadyWhenOptions, type ReadyWhenVerdict } from './ready-when.ts';
export { JsonataCompileError, JsonataEvaluationError, type ExpressionLocation } from './jsonata-errors.ts';
export { boundFunctionNames, JSONATA_LIBRARY_FUNCTIONS } from './jsonata-functions.ts';
export { base64decode, base64encode, child, dnsName, hash, JSONATA_HELPERS, matchLabels, ready, readiness, type JsonataHelper } from './jsonata-helpers.ts';
