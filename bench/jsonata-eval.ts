/**
 * What loom's bounds and isolation cost a JSONata hook. The shipped `web-app` sync expression
 * (`controllers/web-app/controller.yaml`: a WebApp → Deployment, Service and PodDisruptionBudget, status
 * rolled up from the observed Deployment) evaluated on its golden request with all 3 children observed
 * (`testdata/observed-ready.json`), one evaluation at a time, three ways:
 * - baseline: plain `jsonata` evaluate of the same expression, with loom's helpers registered;
 * - in-process: the bounded runner's `call()` (time and depth budget, abort check, result as plain
 *   JSON), as `loom render` and `loom validate` use it;
 * - isolated: what `loom run` uses, the same runner in one evaluator process (`evaluator-pool.ts`),
 *   request and result crossing the IPC channel, one call at a time (each waits for the round trip).
 * Then the isolated runner as `loom run` drives it, with 5 callers (workers) per expression: one
 * expression (one evaluator process, so the rate per evaluating core), and two expressions on two
 * processes; with loom's own CPU time per evaluation (what its event loop pays).
 * Prints evaluations per second and p50/p99 latency of each, and the ratios. Rounds alternate between
 * the variants so all see the same machine; throughput is the median round, latencies are over all rounds.
 * Targets: in-process ≥ 8,000/s, p99 ≤ 1 ms, under 25% slower than the baseline; isolated ≥ 5,000/s per
 * evaluator process.
 * Run with `npm run bench:jsonata [-- evaluationsPerRound rounds]` (default 20000 5).
 */
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import jsonata from 'jsonata';
import { systemClock } from '../src/engine/index.ts';
import { compileIsolatedJsonataHook, compileJsonataHook, createEvaluatorPool } from '../src/hooks/index.ts';
import { JSONATA_HELPERS } from '../src/hooks/jsonata-helpers.ts';

const perRound = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 5);
const WARMUP = 5_000;

/** The expression `kubectl apply` deploys, and the golden request of a WebApp whose 3 children are all observed. */
const webApp = new URL('../controllers/web-app/', import.meta.url);
const manifest = load(readFileSync(new URL('controller.yaml', webApp), 'utf8')) as { spec: { hooks: { sync: { jsonata: { expression: string } } } } };
const EXPRESSION = manifest.spec.hooks.sync.jsonata.expression;
const REQUEST = (JSON.parse(readFileSync(new URL('testdata/observed-ready.json', webApp), 'utf8')) as { request: object }).request;

interface Round { perSecond: number; latenciesMs: number[] }

async function round(evaluate: () => Promise<unknown>, n: number): Promise<Round> {
  const latenciesMs = new Array<number>(n);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await evaluate();
    latenciesMs[i] = performance.now() - t;
  }
  return { perSecond: (n / (performance.now() - start)) * 1000, latenciesMs };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

function summary(results: Round[]): { perSecond: number; p50: number; p99: number } {
  const throughputs = results.map((r) => r.perSecond).toSorted((a, b) => a - b);
  const latencies = results.flatMap((r) => r.latenciesMs).toSorted((a, b) => a - b);
  return { perSecond: throughputs[Math.floor(throughputs.length / 2)]!, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const plain = jsonata(EXPRESSION);
for (const helper of JSONATA_HELPERS) plain.registerFunction(helper.name, helper.implementation);
const options = { expression: EXPRESSION, hook: 'sync', timeoutMs: 1_000, clock: systemClock } as const;
const runner = compileJsonataHook(options);
const pool = createEvaluatorPool({ entry: new URL('../src/jsonata-evaluator.ts', import.meta.url), processes: 2, heapMiB: 256, graceMs: 100, clock: systemClock });
const isolated = compileIsolatedJsonataHook(options, pool);
const second = compileIsolatedJsonataHook(options, pool);
const signal = new AbortController().signal;
const variants = {
  baseline: () => plain.evaluate(REQUEST),
  loom: () => runner.call(REQUEST, signal),
  isolated: () => isolated.call(REQUEST, signal),
};

// Same result both ways, or the comparison means nothing.
const expected = JSON.stringify(await variants.baseline());
if (JSON.stringify(await variants.loom()) !== expected) throw new Error('the runner and plain jsonata disagree');
if (JSON.stringify(await variants.isolated()) !== expected) throw new Error('the isolated runner and plain jsonata disagree');

const results: Record<keyof typeof variants, Round[]> = { baseline: [], loom: [], isolated: [] };
for (const evaluate of Object.values(variants)) await round(evaluate, WARMUP);
for (let i = 0; i < rounds; i++) {
  for (const [name, evaluate] of Object.entries(variants)) results[name as keyof typeof variants].push(await round(evaluate, perRound));
}

/**
 * `callers` concurrent callers per hook, each making `n` calls one after another, as several workers
 * of one controller would: the evaluations per second, and loom's own CPU microseconds per evaluation.
 */
async function concurrently(hooks: readonly (typeof isolated)[], callers: number, n: number): Promise<{ cpuMicros: number; perSecond: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const caller = async (hook: typeof isolated) => {
    for (let i = 0; i < n; i++) await hook.call(REQUEST, signal);
  };
  await Promise.all(hooks.flatMap((hook) => Array.from({ length: callers }, () => caller(hook))));
  const used = process.cpuUsage(cpu);
  const total = hooks.length * callers * n;
  return { cpuMicros: (used.user + used.system) / total, perSecond: (total * 1000) / (performance.now() - start) };
}
await concurrently([isolated], 5, 2_000);
const onOne = await concurrently([isolated], 5, perRound / 5);
const onTwo = await concurrently([isolated, second], 5, perRound / 5);
pool.close();

const base = summary(results.baseline);
const loom = summary(results.loom);
const iso = summary(results.isolated);
const line = (name: string, s: typeof base) =>
  `${name.padEnd(26)} ${Math.round(s.perSecond).toString().padStart(6)} evaluations/s   p50 ${s.p50.toFixed(3)} ms   p99 ${s.p99.toFixed(3)} ms`;
console.log(`web-app sync expression, parent with 3 children; ${rounds} rounds of ${perRound} evaluations each, one at a time`);
console.log(line('plain jsonata (baseline)', base));
console.log(line('in-process bounded runner', loom));
console.log(line('isolated runner (1 process)', iso));
console.log(`ratio in-process/baseline: throughput ${(loom.perSecond / base.perSecond).toFixed(3)}, p99 ${(loom.p99 / base.p99).toFixed(3)}` +
  ` (overhead ${((1 - loom.perSecond / base.perSecond) * 100).toFixed(1)}%)`);
console.log(`ratio isolated/baseline: throughput ${(iso.perSecond / base.perSecond).toFixed(3)}, p99 ${(iso.p99 / base.p99).toFixed(3)}`);
const rate = (r: { perSecond: number; cpuMicros: number }) =>
  `${Math.round(r.perSecond).toString().padStart(6)} evaluations/s   loom's own CPU ${r.cpuMicros.toFixed(1)} µs per evaluation`;
console.log(`isolated, 5 callers of one expression (1 process):  ${rate(onOne)}`);
console.log(`isolated, 5 callers each of 2 expressions (2 processes): ${rate(onTwo)}`);
