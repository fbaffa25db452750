/**
 * Does a healthy controller's JSONata hook stay within its budget while other controllers' hooks run
 * away? One evaluator pool as `loom run` makes it (2 processes, 256 MiB, 100 ms grace), real evaluator
 * processes, no control plane:
 * - two runaway controllers, each calling an expression that backtracks for minutes in one regex call,
 *   with a 30 s budget, again and again (each call for another parent), so that both would hold a
 *   process all the time;
 * - one healthy controller calling a small expression with a 500 ms budget, one call at a time, a
 *   tenth of a second apart.
 * Prints the healthy calls' latency (p50, p99, max, how many of them finished within their budget) and
 * how the runaway calls ended. No assertion: figures for the README.
 * Run with `npm run bench:fairness [-- seconds]` (default 40).
 */
import { systemClock } from '../src/engine/index.ts';
import { createEvaluatorPool, type EvaluatorAnswer } from '../src/hooks/index.ts';

const seconds = Number(process.argv[2] ?? 40);
const HEALTHY_BUDGET_MS = 500;
const RUNAWAY = '{"r": $contains($pad("", 30, "a") & "!", /^(a+)+\\1?$/)}';
const HEALTHY = '{"children": [], "status": {"name": parent.metadata.name}}';

const pool = createEvaluatorPool({
  entry: new URL('../src/jsonata-evaluator.ts', import.meta.url), processes: 2, heapMiB: 256, graceMs: 100, clock: systemClock,
});
const stop = new AbortController();
const request = { parent: { metadata: { name: 'web', uid: 'uid-web' } } };
const endings = new Map<string, number>();

/**
 * Calls `owner`'s runaway expression back to back until the bench ends, each call for a parent of its
 * own (so the strike book never rests it: the worst case), counting how each call ended.
 */
async function runAway(owner: string): Promise<void> {
  const expression = pool.define({ expression: RUNAWAY, hook: 'sync', timeoutMs: 30_000 }, owner);
  for (let parent = 0; !stop.signal.aborted; parent++) {
    const answer: EvaluatorAnswer | undefined = await expression.evaluate(request, stop.signal, `${owner}-${parent}`).catch(() => undefined);
    const ending = answer === undefined ? 'not answered' : 'response' in answer ? 'answer' : answer.failure.message.replace(/\d+/g, 'N');
    endings.set(ending, (endings.get(ending) ?? 0) + 1);
  }
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

const runaways = [runAway('CompositeController/runaway-a'), runAway('CompositeController/runaway-b')];
await systemClock.sleep(2_000); // both runaways hold a process
const healthy = pool.define({ expression: HEALTHY, hook: 'sync', timeoutMs: HEALTHY_BUDGET_MS }, 'CompositeController/healthy');
const latencies: number[] = [];
const until = systemClock.now() + seconds * 1000;
while (systemClock.now() < until) {
  const started = systemClock.now();
  await healthy.evaluate(request, new AbortController().signal, 'uid-web');
  latencies.push(systemClock.now() - started);
  await systemClock.sleep(100);
}
stop.abort();
pool.close();
await Promise.all(runaways);

const sorted = [...latencies].sort((a, b) => a - b);
const within = latencies.filter((ms) => ms <= HEALTHY_BUDGET_MS).length;
console.log(`healthy JSONata hook (${HEALTHY_BUDGET_MS} ms budget) beside 2 runaway controllers (30 s budgets), 2 evaluator processes, ${seconds} s`);
console.log(`healthy calls: ${latencies.length}; latency p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms; within budget: ${within} of ${latencies.length}`);
console.log('runaway calls ended:');
for (const [ending, count] of endings) console.log(`  ${String(count).padStart(4)} × ${ending}`);
