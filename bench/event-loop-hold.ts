/**
 * How long checking and planning a hook's answer holds the event loop at a stretch. A hook answering
 * N ConfigMap children of a parent (none observed yet), through the steps a sync takes on the event
 * loop: JSON.parse of the body, decoding the response, checking and completing the children
 * (`normaliseDesiredChildrenInSlices`) and planning the writes (`planChildrenInSlices`), the last two
 * in slices of `SLICE_CHILDREN` with a turn of the event loop between. Prints the longest stretch of
 * each step and, for comparison, the whole of each step done at once. Target: no stretch over ~50 ms at
 * `--max-children-per-parent`'s default of 10,000.
 * Run with `npm run bench:event-loop [-- N …]` (default 1000 10000).
 */
import { decodeCompositeResponse } from '../src/api/index.ts';
import { SLICE_CHILDREN } from '../src/controllers/in-turns.ts';
import { normaliseDesiredChildrenInSlices, planChildrenInSlices } from '../src/core/index.ts';

const sizes = process.argv.slice(2).map(Number);
const parent = { apiVersion: 'example.com/v1', kind: 'App', metadata: { name: 'app', namespace: 'ns', uid: 'uid-app' } };

/** The longest synchronous stretch between pauses of `steps`, and their sum, in ms. */
function stretches<R>(steps: Generator<void, R>): { longest: number; total: number; result: R } {
  let longest = 0;
  let total = 0;
  for (;;) {
    const start = performance.now();
    const step = steps.next();
    const took = performance.now() - start;
    longest = Math.max(longest, took);
    total += took;
    if (step.done) return { longest, total, result: step.value };
  }
}

function timed<R>(work: () => R): { ms: number; result: R } {
  const start = performance.now();
  const result = work();
  return { ms: performance.now() - start, result };
}

function measure(n: number): void {
  const children = Array.from({ length: n }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { app: 'app' } }, data: { index: String(i) } }));
  const body = JSON.stringify({ children, status: { ready: true } });
  const parsed = timed(() => JSON.parse(body) as unknown);
  const decoded = timed(() => decodeCompositeResponse(parsed.result, 'loose').response);
  const options = {
    parent, children: decoded.result.children, selector: { matchLabels: { app: 'app' } }, generateSelector: false,
    declaredTypes: [{ apiVersion: 'v1', kind: 'ConfigMap', namespaced: true }], applyStrategy: 'server-side-apply' as const,
  };
  const checked = stretches(normaliseDesiredChildrenInSlices(options, SLICE_CHILDREN));
  if (!checked.result.ok) throw new Error(checked.result.problems.join('; '));
  const planInput = { desired: checked.result.children, observed: [], methodFor: () => 'InPlace' as const, applyStrategy: 'server-side-apply' as const, fieldManager: 'loom', lastApplied: () => undefined };
  const planned = stretches(planChildrenInSlices(planInput, SLICE_CHILDREN));
  const longest = Math.max(parsed.ms, decoded.ms, checked.longest, planned.longest);
  console.log(`${String(n).padStart(6)} children (${(body.length / 1e6).toFixed(1)} MB): JSON.parse ${parsed.ms.toFixed(1)} ms, decode ${decoded.ms.toFixed(1)} ms, ` +
    `check ${checked.longest.toFixed(1)} ms at most (${checked.total.toFixed(1)} ms at once), plan ${planned.longest.toFixed(1)} ms at most (${planned.total.toFixed(1)} ms at once); ` +
    `longest stretch ${longest.toFixed(1)} ms`);
}

for (let i = 0; i < 2; i++) measure(1000); // warm up
for (const n of sizes.length > 0 ? sizes : [1000, 10_000]) measure(n);
