/**
 * The readiness judge of one running controller, built and released with its hook runners
 * (the judge itself: `sync/controller-judge.ts`).
 */
import { DEFAULT_CIRCUIT_POLICY } from '../hooks/index.ts';
import type { ReadyWhenJudge } from '../sync/ready-when-judge.ts';
import { controllerJudge, type JudgedType } from '../sync/controller-judge.ts';
import type { ExpressionSources } from './expression-sources.ts';
import { controllerRunners, type ControllerHookRunners, type ControllerHooksInput } from './hook-runners.ts';
import type { Host } from './host.ts';

/**
 * A controller's hook runners and readiness judge, built together and released together: their
 * `release()` lets go of both. A hook or a type's `readyWhen` that does not compile throws, with
 * nothing left held.
 */
export async function runnersAndJudge(
  host: Host, hooks: ControllerHooksInput, sources: ExpressionSources, types: readonly JudgedType[],
): Promise<{ runners: ControllerHookRunners; readiness: ReadyWhenJudge }> {
  const runners = await controllerRunners(host, hooks, sources);
  let readiness: ReadyWhenJudge;
  try {
    const owner = `${hooks.controller.type}/${hooks.controller.controller}`;
    readiness = controllerJudge({ evaluators: host.evaluators, clock: host.clock, owner, types });
  } catch (error) {
    runners.release();
    throw error;
  }
  const release = (): void => {
    runners.release();
    readiness.release();
  };
  return { runners: { ...runners, release }, readiness };
}

/**
 * Builds a controller's hook runners and readiness judge as {@link runnersAndJudge} does, and releases
 * them at once: throws what building them throws, so a running controller is stopped for a new spec
 * only once that spec's hooks and expressions can be built. The webhooks' circuit breakers are left
 * out: their metrics are the running controller's, which a release here would remove.
 */
export async function checkRunnersAndJudge(host: Host, hooks: ControllerHooksInput, sources: ExpressionSources, types: readonly JudgedType[]): Promise<void> {
  const noCircuits = { ...host, settings: { ...host.settings, hookCircuit: { ...DEFAULT_CIRCUIT_POLICY, failures: 0 } } };
  const { runners } = await runnersAndJudge(noCircuits, hooks, sources, types);
  runners.release();
}
