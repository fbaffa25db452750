/**
 * How fast `loom run` starts: from spawning the process to its "loom is running" log line (discovery
 * done, servers listening), to its first "watch established" (debug) line, the API server having
 * accepted the first watch, and to the first `200` from `/readyz` (every cache synced), against a local
 * control plane with loom's CRDs. Two variants, each started `runs` times: the sources run by Node's
 * type stripping (`node src/cli/main.ts`), and the compiled package as the image holds it (laid out
 * by `scripts/image-rootfs.sh`). Run with `npm run bench:start [-- runs]` (default 5).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { crdManifests } from '../src/cli/install-crds.ts';
import { startControlPlane } from '../src/devcluster/index.ts';
import { freeLoopbackPort } from '../src/devcluster/ports.ts';
import { systemClock } from '../src/engine/index.ts';

const runs = Number(process.argv[2] ?? 5);

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function command(cmd: string, args: string[]): Promise<void> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${String(code)}`);
}

interface Start {
  running: number;
  watching: number;
  ready: number;
}

/** One start: spawn, wait for the log line and for /readyz, then SIGTERM by PID and wait for the exit. */
async function startOnce(entry: string, kubeconfig: string): Promise<Start> {
  const port = await freeLoopbackPort();
  const started = systemClock.now();
  const child = spawn(process.execPath, [
    entry, 'run', '--kubeconfig', kubeconfig, '--metrics-address', '0', '--health-probe-bind-address', `127.0.0.1:${port}`, '--log-level', 'debug', '--log-format', 'json',
  ], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let running!: (ms: number) => void;
  let watching!: (ms: number) => void;
  const times = { running: new Promise<number>((resolve) => (running = resolve)), watching: new Promise<number>((resolve) => (watching = resolve)) };
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (line.includes('"loom is running"')) running(systemClock.now() - started);
    if (line.includes('"watch established"')) watching(systemClock.now() - started);
  });
  let ready: number | undefined;
  while (ready === undefined) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
    if (ok) ready = systemClock.now() - started;
    else await systemClock.sleep(5);
  }
  const result = { running: await times.running, watching: await times.watching, ready };
  child.kill('SIGTERM');
  await exited;
  return result;
}

const work = await mkdtemp(join(tmpdir(), 'loom-bench-start-'));
const plane = await startControlPlane({ crds: await crdManifests() });
try {
  await command('bash', ['scripts/image-rootfs.sh', join(work, 'rootfs')]);
  const variants = {
    'sources (type stripping)': 'src/cli/main.ts',
    'compiled package (image payload)': join(work, 'rootfs/opt/loom/node_modules/kube-loom/dist/src/cli/bin.js'),
  };
  for (const [name, entry] of Object.entries(variants)) {
    const starts: Start[] = [];
    for (let i = 0; i < runs; i++) starts.push(await startOnce(entry, plane.kubeconfigPath));
    console.log(`${name}: ${starts.map((s) => `${s.running}/${s.watching}/${s.ready}`).join(', ')} ms (running/first watch/ready)`);
    console.log(`  median of ${runs}: "loom is running" ${median(starts.map((s) => s.running))} ms, first watch established ${median(starts.map((s) => s.watching))} ms, /readyz 200 ${median(starts.map((s) => s.ready))} ms`);
  }
  console.log(`(Node ${process.version}, from spawn; a warm file cache: the first start of the machine pays more)`);
} finally {
  await plane.stop();
  await rm(work, { recursive: true, force: true });
}
