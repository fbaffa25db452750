/**
 * The JSONata evaluator processes as loom starts them: the program beside this module
 * (`jsonata-evaluator.ts`) in a pool with loom's bounds (`hooks/evaluator-pool.ts`). `loom run` and
 * the offline tools (`loom render`, `loom plan`) both start theirs here, so an expression is bounded
 * offline exactly as it is in the cluster: a runaway is killed at its deadline, a value too large for
 * V8 or a spent heap ends only its evaluator process, and the command reports it as the hook's error.
 */
import { extname } from 'node:path';
import { createEvaluatorPool, type EvaluatorPool, type EvaluatorPoolOptions } from './hooks/index.ts';

/** Two: runaway expressions then share one, and the other stays for every healthy JSONata hook (`hooks/evaluator-fairness.ts`). */
export const DEFAULT_JSONATA_PROCESSES = 2;
/** Ample for any sane expression's input and result (a hook request is at most a few MiB). */
export const DEFAULT_JSONATA_MEMORY_MIB = 256;
/** How long past its budget a JSONata call may run before its evaluator process is killed. */
const JSONATA_GRACE_MS = 100;
/**
 * The evaluator processes' entry module, beside this one: `.ts` when loom runs from its sources,
 * `.js` in the compiled package (tsc rewrites import specifiers, not URLs).
 */
const EVALUATOR_ENTRY = new URL(`./jsonata-evaluator${extname(import.meta.url)}`, import.meta.url);

/** What a command may choose about its evaluators; the rest is loom's. */
export interface JsonataEvaluatorSettings {
  clock: EvaluatorPoolOptions['clock'];
  /** Most processes at a time; default {@link DEFAULT_JSONATA_PROCESSES}. */
  processes?: number | undefined;
  /** Heap limit of each process in MiB; default {@link DEFAULT_JSONATA_MEMORY_MIB}. */
  heapMiB?: number | undefined;
  /** Starts one process (tests watch the PIDs with it); default: the pool's. */
  start?: EvaluatorPoolOptions['start'];
}

/**
 * A pool of evaluator processes with loom's bounds. It starts processes only when a call needs one;
 * its owner must `close()` it when done, which kills every process it started by PID.
 */
export function startJsonataEvaluators(settings: JsonataEvaluatorSettings): EvaluatorPool {
  return createEvaluatorPool({
    entry: EVALUATOR_ENTRY, clock: settings.clock, graceMs: JSONATA_GRACE_MS, start: settings.start,
    processes: settings.processes ?? DEFAULT_JSONATA_PROCESSES, heapMiB: settings.heapMiB ?? DEFAULT_JSONATA_MEMORY_MIB,
  });
}

/**
 * Runs `use` with a pool of its own (see {@link startJsonataEvaluators}) and closes the pool when
 * `use` settles, either way, so a command leaves no evaluator process behind: each is killed by its
 * PID. (A command killed before that leaves none either: an evaluator exits when its parent goes,
 * within half a second even mid-evaluation, `hooks/parent-watchdog.ts`.)
 */
export async function withJsonataEvaluators<T>(settings: JsonataEvaluatorSettings, use: (evaluators: EvaluatorPool) => Promise<T>): Promise<T> {
  const evaluators = startJsonataEvaluators(settings);
  try {
    return await use(evaluators);
  } finally {
    evaluators.close();
  }
}
