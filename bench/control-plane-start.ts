/**
 * How long the local control plane takes to start and stop once its binaries are cached.
 * Prints one line per run and the medians; run with `npm run bench:control-plane [-- runs]`.
 */
import { systemClock } from '../src/engine/clock.ts';
import { ensureBinaries, startControlPlane } from '../src/devcluster/index.ts';

const PARTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'garbage-collector'] as const;

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const runs = Number(process.argv[2] ?? 5);
const binaries = await ensureBinaries((line) => process.stderr.write(`${line}\n`));
const rows: Record<string, number>[] = [];
for (let i = 1; i <= runs; i++) {
  const plane = await startControlPlane({ binaries });
  const stopStarted = systemClock.now();
  await plane.stop();
  const row: Record<string, number> = { ...plane.readyAfterMs, stop: systemClock.now() - stopStarted };
  rows.push(row);
  console.log(`run ${i}: ${[...PARTS, 'stop'].map((p) => `${p} ${row[p]} ms`).join(', ')}`);
}
console.log(`median of ${runs}: ${[...PARTS, 'stop'].map((p) => `${p} ${median(rows.map((r) => r[p] ?? NaN))} ms`).join(', ')}`);
console.log('(times from the first process start; kube-apiserver = /readyz answered 200)');
