/**
 * The time and depth bounds of one JSONata runner, as the options object JSONata is compiled with.
 *
 * JSONata's guardrails run synchronously before every evaluation step and read `options.stack` (the
 * deepest nesting allowed) and `options.timeout` there. Its own timeout would read the wall clock at
 * every step, which costs about a tenth of a typical evaluation on a VM where a clock reading takes
 * ~70 ns; a step callback (`__evaluate_entry`) would cost an `await` per step instead. So `timeout` is
 * a getter that does the counting itself: every {@link CLOCK_CHECK_INTERVAL} steps it reads the
 * injected clock and the running call's signal, and throws once the call's budget is spent. It then
 * returns 0, so JSONata's own clock check never runs. `jsonata-runner.test.ts` fails if a JSONata
 * upgrade stops reading `timeout` per step.
 *
 * The budget is the runner's, not each call's: the getter cannot tell calls apart. The runner
 * therefore evaluates one call at a time ({@link EvaluationBudget.run}), which costs no throughput, as
 * an evaluation holds the event loop until it ends anyway.
 *
 * A call can end while some of its work goes on: JSONata evaluates the items of an array or object
 * constructor together (`Promise.all`), so when one item fails, the call rejects while its siblings
 * still run. Every step taken while no call is running is such leftover work and is stopped at once.
 * After a call that failed, the next one waits for a turn of the event loop, so leftovers are gone
 * before it starts (they would spend its budget) and timers and I/O get to run between two runaways.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Evaluation steps between two readings of the clock and the signal, so a typical evaluation (a few
 * hundred steps) reads the clock a dozen times rather than hundreds. A budget is overrun by at most
 * this many steps: a step usually takes well under a microsecond, though a single native call over a
 * huge array (`$sum([1..10000000])`) can take milliseconds. `bench/jsonata-eval.ts` measures the cost.
 */
export const CLOCK_CHECK_INTERVAL = 16;

/** Why the budget stopped a call. */
export type BudgetStop = 'timeout' | 'abort';

/** What JSONata reads; pass it as the options of `jsonata(expression, options)`. */
export interface GuardrailOptions {
  readonly stack: number;
  readonly timeout: number;
}

/** One runner's bounds; see the module comment. */
export interface EvaluationBudget {
  /** The options to compile the expression with. */
  readonly options: GuardrailOptions;
  /**
   * Runs `evaluate` once every earlier call of this budget has ended, bounded by `timeoutMs` from its
   * own start and by `signal` (not run at all when the signal has aborted by then). Resolves to how
   * `evaluate` settled and why the budget stopped it (`undefined` when it did not); never rejects.
   */
  run<T>(signal: AbortSignal, evaluate: () => Promise<T>): Promise<{ settled: PromiseSettledResult<T>; stopped: BudgetStop | undefined }>;
}

interface RunningCall {
  deadline: number;
  signal: AbortSignal;
  stopped: BudgetStop | undefined;
}

/** A budget of `timeoutMs` per call and `maxDepth` of nesting, measured on `clock`. */
export function evaluationBudget(timeoutMs: number, maxDepth: number, clock: { now(): number }): EvaluationBudget {
  let steps = 0;
  let running: RunningCall | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const options: GuardrailOptions = {
    stack: maxDepth,
    get timeout(): number {
      if (running === undefined) throw new Error('evaluation outlived its call');
      if (++steps % CLOCK_CHECK_INTERVAL !== 0) return 0;
      if (running.signal.aborted) running.stopped = 'abort';
      else if (clock.now() > running.deadline) running.stopped = 'timeout';
      else return 0;
      // Which bound it was is in `running`: JSONata decorates what is thrown, and `$eval` wraps it.
      throw new Error('evaluation budget spent');
    },
  };
  const runOne = async <T>(signal: AbortSignal, evaluate: () => Promise<T>) => {
    if (signal.aborted) return { settled: { status: 'rejected', reason: signal.reason as unknown } as PromiseSettledResult<T>, stopped: 'abort' as const };
    const call: RunningCall = { deadline: clock.now() + timeoutMs, signal, stopped: undefined };
    running = call;
    try {
      const settled = await evaluate().then(
        (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
        (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
      );
      return { settled, stopped: call.stopped };
    } finally {
      running = undefined;
    }
  };
  return {
    options,
    run(signal, evaluate) {
      const result = queue.then(() => runOne(signal, evaluate));
      queue = result.then(({ settled }) => (settled.status === 'rejected' ? nextTurn() : undefined), () => undefined);
      return result;
    },
  };
}
