/**
 * The readiness judge of one running controller, built and released with its hook runners
 * (the judge itself: `sync/controller-judge.ts`).
 */
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
