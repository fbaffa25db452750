/**
 * The host's client-side rate limits. API requests — caches (informer lists and watches), discovery,
 * the status of controller objects, and each controller's own reads and writes — share
 * `--client-go-qps/burst`, taking turns by tenant (engine/fair-throttle.ts): one controller's storm of
 * syncs costs the host and every other controller at most one slot each. Event writes have a budget
 * of their own at the same rate, as controller-runtime's event recorder has a client, and so a rate
 * limiter, of its own: an event never takes a slot a cache, discovery or a status write needs. Events
 * are dropped rather than queued past their worth: each kind of object they are about holds at most
 * {@link MAX_QUEUED_EVENTS} places, and an event still waiting for its slot after
 * {@link MAX_EVENT_WAIT_MS} is dropped.
 */
import {
  createDroppingThrottle, createFairThrottle, TokenBucket, type Clock, type DroppingThrottle,
} from '../engine/index.ts';

/** The API client's tenant for the host's own requests: caches, discovery, controller status. */
export const HOST_TENANT = 'loom';
/** Places in line per kind of involved object (client-go's broadcaster queues 1,000 events, then drops). */
export const MAX_QUEUED_EVENTS = 1_000;
/**
 * Longest an event waits for its write slot. An Event written later than this, behind a storm, tells
 * little (the failure it reports has been retried meanwhile, and will be reported again).
 */
export const MAX_EVENT_WAIT_MS = 60_000;

/** The two budgets. */
export interface RequestBudgets {
  /**
   * The API client's throttle (`RestClientOptions.throttle`): resolves when `tenant` (a controller; absent:
   * the host) may send a request; rejects, leaving the line, if `signal` aborts first.
   */
  readonly api: (tenant: string | undefined, signal: AbortSignal | undefined) => Promise<void>;
  /** The places and slots of event writes (`EventRecorderOptions.budget`). */
  events: DroppingThrottle;
}

/** Settings of {@link requestBudgets}. */
export interface RequestBudgetsOptions {
  clock: Clock;
  /** `--client-go-qps`. */
  qps: number;
  /** `--client-go-burst`. */
  burst: number;
  /** When it aborts, events still waiting are dropped. */
  signal?: AbortSignal | undefined;
}

/** Both budgets, each with its own token bucket. */
export function requestBudgets(options: RequestBudgetsOptions): RequestBudgets {
  const { clock, qps, burst } = options;
  const api = createFairThrottle({ clock, limiter: new TokenBucket({ clock, qps, burst }) });
  const events = createFairThrottle({ clock, limiter: new TokenBucket({ clock, qps, burst }) });
  return {
    api: (tenant, signal) => api.wait(tenant ?? HOST_TENANT, signal),
    events: createDroppingThrottle({ clock, throttle: events, maxWaiting: MAX_QUEUED_EVENTS, maxWaitMs: MAX_EVENT_WAIT_MS, signal: options.signal }),
  };
}
