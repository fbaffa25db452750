/**
 * A stand-in for loom in `parent-watchdog.test.ts`: a process that makes an evaluator pool, starts a
 * call that backtracks for hours in one regex call (its budget an hour, so the pool would not kill it),
 * and prints the evaluator's process id. The test then kills this process by its id, as a SIGKILL of
 * loom would, and watches the orphaned evaluator.
 */
import { systemClock } from '../engine/clock.ts';
import { createEvaluatorPool } from './evaluator-pool.ts';
import { startEvaluatorProcess } from './evaluator-process.ts';

const BACKTRACK = '{"r": $contains($pad("", 40, "a") & "!", /^(a+)+\\1?$/)}';

const pool = createEvaluatorPool({
  entry: new URL('../jsonata-evaluator.ts', import.meta.url), processes: 1, heapMiB: 64, graceMs: 100, clock: systemClock,
  start: (entry, heapMiB, events) => {
    const evaluator = startEvaluatorProcess(entry, heapMiB, events);
    process.stdout.write(`${evaluator.pid}\n`);
    return evaluator;
  },
});
void pool.define({ expression: BACKTRACK, hook: 'sync', timeoutMs: 3_600_000 }, 'host').evaluate({}, new AbortController().signal, 'parent');
