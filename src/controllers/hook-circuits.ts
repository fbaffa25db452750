/**
 * The circuit breakers of one controller's webhooks, one per endpoint (URL without credentials,
 * query or fragment), shared by its sync, finalize and customize hooks when they call the same one
 * (docs/hook-protocol.md, "Circuit breaker"). Each change of state is logged, counted in the
 * metrics, and told to the controller loop, which queues again the parents the breaker skipped.
 */
import type { Logger } from 'pino';
import { createCircuitBreaker, type CircuitBreaker, type CircuitGuard, type CircuitPolicy, type CircuitTransition } from '../hooks/index.ts';
import { hookUrlLabel } from '../metrics/hook-url-label.ts';
import type { ControllerLabels, Metrics } from '../metrics/metrics.ts';
import type { Host } from './host.ts';

/** Told of each change of state of one of the controller's breakers. */
export type CircuitListener = (endpoint: string, transition: CircuitTransition) => void;

/** The breakers of one controller. */
export interface HookCircuits {
  /** The guard of the endpoint `url` calls, made at the first ask; `undefined` when breakers are off. */
  guard(url: string): CircuitGuard | undefined;
  /** Adds a listener; returns its removal. */
  subscribe(listener: CircuitListener): () => void;
  /** Forgets the breakers and removes their metric series (the controller has stopped, or failed to start). Idempotent. */
  release(): void;
}

/** A breaker whose refusals are counted. */
function counted(breaker: CircuitBreaker, refused: () => void): CircuitBreaker {
  return {
    admit() {
      const admission = breaker.admit();
      if (!admission.admitted) refused();
      return admission;
    },
    settle: (call, verdict) => breaker.settle(call, verdict),
    state: () => breaker.state(),
  };
}

/** What the breakers of a controller report to. */
interface CircuitReports {
  metrics: Metrics;
  logger: Logger;
  controller: ControllerLabels;
  listeners: Set<CircuitListener>;
}

function report(reports: CircuitReports, endpoint: string, observe: ReturnType<Metrics['circuitObserver']>): (transition: CircuitTransition) => void {
  return (transition) => {
    observe.changed(transition.to);
    const fields = { endpoint, failures: transition.failures, ...(transition.retryAt === undefined ? {} : { nextTry: new Date(transition.retryAt).toISOString() }) };
    if (transition.to === 'open') reports.logger.warn(fields, 'hook circuit open');
    else reports.logger.info(fields, `hook circuit ${transition.to}`);
    for (const listener of reports.listeners) listener(endpoint, transition);
  };
}

/** The breakers of the controller `controller`, under `policy` (breakers are off when its `failures` is 0). */
export function createHookCircuits(host: Pick<Host, 'metrics' | 'clock' | 'logger'>, controller: ControllerLabels, policy: CircuitPolicy): HookCircuits {
  const guards = new Map<string, CircuitGuard>();
  const observers: ReturnType<Metrics['circuitObserver']>[] = [];
  const reports: CircuitReports = { metrics: host.metrics, logger: host.logger, controller, listeners: new Set() };
  return {
    guard(url) {
      if (policy.failures <= 0) return undefined;
      const endpoint = hookUrlLabel(url);
      let guard = guards.get(endpoint);
      if (!guard) {
        const observe = host.metrics.circuitObserver(controller, endpoint);
        observers.push(observe);
        const breaker = createCircuitBreaker({ policy, clock: host.clock, onTransition: report(reports, endpoint, observe) });
        guard = { breaker: counted(breaker, () => observe.refused()), endpoint };
        guards.set(endpoint, guard);
      }
      return guard;
    },
    subscribe(listener) {
      reports.listeners.add(listener);
      return () => reports.listeners.delete(listener);
    },
    release() {
      for (const observe of observers.splice(0)) observe.remove();
      guards.clear();
    },
  };
}
