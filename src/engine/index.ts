/**
 * The engine knows keys, not Kubernetes. What crosses its boundary: the clock, the work queue and its
 * rate limiters, the reconciler contract with the errors that steer retries, and the worker loop.
 */
export { nextTurn, systemClock, type Clock } from './clock.ts';
export { createConcurrencyLimit, type ConcurrencyLimit } from './concurrency-limit.ts';
export { createFairThrottle, type FairThrottle } from './fair-throttle.ts';
export { createDroppingThrottle, type DroppingThrottle, type DroppingThrottleOptions, type Place } from './dropping-throttle.ts';
export { drainWithin, type DrainBound, type DrainOutcome } from './drain-within.ts';
export { errorChain } from './error-chain.ts';
export { engineErrorOf, RetryAfterError, TerminalError, type RetryAfterOptions } from './errors.ts';
export {
  defaultControllerRateLimiter,
  ExponentialBackoff,
  maxOf,
  TokenBucket,
  type ControllerRateLimiterOptions,
  type ExponentialBackoffOptions,
  type RateLimiter,
  type TokenBucketOptions,
} from './rate-limiter.ts';
export type { ReconcileResult, Reconciler } from './reconciler.ts';
export {
  runWorkers,
  type OutcomeResult,
  type ReconcileOutcome,
  type RunWorkersOptions,
  type WorkerQueue,
} from './run-workers.ts';
export { createSkippedKeys, type SkippedKeys, type TakenKeys } from './skipped-keys.ts';
export { WorkQueue, type WorkQueueOptions } from './work-queue.ts';
export { NO_TRACING, type SpanAttributes, type Tracing } from './tracing.ts';
