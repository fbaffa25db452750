/**
 * The evaluator pool's watchdog (`evaluator-pool.ts`): while any call is sent to a process, it wakes
 * every `graceMs / 2` and kills
 * - each process whose running call is past its deadline (`timeoutMs + graceMs` after it started):
 *   the only bound on a native call, which the evaluator's own step budget cannot interrupt;
 * - the process whose call `whoMakesRoom` (`evaluator-fairness.ts`) names, when every process is
 *   busy and a call of a controller that holds none has waited out its patience.
 * A killed process is marked with why (`stopped`), so the pool says so when it reports the exit.
 */
import { whoMakesRoom, type Running, type Waiting } from './evaluator-fairness.ts';
import type { StopReason } from './evaluator-process.ts';

/** A process as the watchdog sees it. */
export interface Watched {
  /** Calls sent and not answered, oldest (the one running) first. */
  readonly sent: readonly { readonly call: { readonly expression: { readonly definition: { readonly timeoutMs: number } } } }[];
  /** When the oldest sent call started running. */
  readonly startedAt: number;
  /** Set when the watchdog killed the process. */
  stopped: StopReason | undefined;
  readonly process: { kill(): void };
}

/** What the watchdog watches, and when. */
export interface WatchdogOptions {
  clock: { now(): number; sleep(ms: number): Promise<void> };
  graceMs: number;
  /** Most processes of the pool. */
  processes: number;
  /** The pool's processes (live: it changes as they start and end). */
  evaluators: ReadonlySet<Watched>;
  /** The waiting line: its expressions as the fairness rules see them. */
  line: { readonly length: number; waiting(): readonly Waiting[] };
  /** The busy processes as the fairness rules see them, in the order of `evaluators`. */
  running(): Running[];
  closed(): boolean;
}

/** The watchdog of a pool. */
export interface Watchdog {
  /** Starts watching, unless it is already: call it whenever a call is sent. */
  watch(): void;
}

/** A watchdog that sleeps until {@link Watchdog.watch} is called. */
export function evaluatorWatchdog(options: WatchdogOptions): Watchdog {
  const { clock, evaluators } = options;
  let watching = false;

  const stop = (evaluator: Watched, reason: StopReason): void => {
    evaluator.stopped = reason;
    evaluator.process.kill();
  };

  /** Kills the processes whose running call is past its deadline. */
  const stopOverdue = (): void => {
    for (const evaluator of evaluators) {
      const sent = evaluator.sent[0];
      if (sent === undefined || evaluator.stopped !== undefined) continue;
      if (clock.now() > evaluator.startedAt + sent.call.expression.definition.timeoutMs + options.graceMs) stop(evaluator, 'deadline');
    }
  };

  /** When every process is busy (none starting or being stopped), stops the call `whoMakesRoom` names. */
  const makeRoom = (): void => {
    const all = [...evaluators];
    if (options.line.length === 0 || all.length < options.processes || all.some((e) => e.sent.length === 0 || e.stopped !== undefined)) return;
    const victim = whoMakesRoom(options.line.waiting(), options.running(), clock.now());
    if (victim !== undefined) stop(all[victim]!, 'room');
  };

  return {
    watch() {
      if (watching || options.closed()) return;
      watching = true;
      void (async () => {
        while (!options.closed() && [...evaluators].some((e) => e.sent.length > 0)) {
          await clock.sleep(options.graceMs / 2);
          stopOverdue();
          makeRoom();
        }
        watching = false;
      })();
    },
  };
}
