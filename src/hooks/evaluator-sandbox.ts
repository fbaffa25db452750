/**
 * What an evaluator process is given: nothing it does not need. It gets an empty environment but for
 * the allocator's arena limit (the host's holds credentials: a kubeconfig path, tokens), and runs
 * under Node's permission model with exactly these grants:
 * - reading the evaluator's own program: the folder of its entry module (`src/` or `dist/`), and the
 *   `jsonata` package as Node finds it from there;
 * - one worker thread, its parent watchdog (`parent-watchdog.ts`).
 * No writes, no child processes, no native addons, no inspector, no WASI. (The permission model of
 * Node 24 does not cover the network; an evaluator has no code that opens a socket, and JSONata
 * cannot call one.)
 * `--preserve-symlinks` makes Node load `jsonata` by the path it found it at, so that path is the only
 * one to grant, also where `node_modules` is a link.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** glibc's allocator arenas of an evaluator whose host sets no limit: as many as the `loom` command gives a host. */
const DEFAULT_ARENAS = '2';

/** The one package an evaluator loads from `node_modules`. */
const EVALUATOR_PACKAGES = ['jsonata'] as const;

/** Where Node finds `name` from `entry`'s folder: the first `node_modules/<name>` on its lookup path. */
function packageDir(entry: URL, name: string): string {
  const lookup = createRequire(entry).resolve.paths(name) ?? [];
  const found = lookup.map((dir) => join(dir, name)).find((dir) => existsSync(join(dir, 'package.json')));
  if (found === undefined) throw new Error(`the JSONata evaluator needs the ${name} package, which is not installed where ${fileURLToPath(entry)} can load it`);
  return found;
}

/** Node's options that confine an evaluator started from `entry` (see the module comment). */
export function sandboxArgs(entry: URL): string[] {
  const reads = [dirname(fileURLToPath(entry)), ...EVALUATOR_PACKAGES.map((name) => packageDir(entry, name))];
  // PERM0006 warns, on every start, that a worker runs with the process's permissions: the watchdog
  // does, and it is the only worker, since no expression can start one.
  return ['--permission', ...reads.map((path) => `--allow-fs-read=${path}`), '--allow-worker', '--disable-warning=PERM0006', '--preserve-symlinks'];
}

/**
 * The environment of an evaluator: empty but for `MALLOC_ARENA_MAX`. Node needs none of the host's
 * to start a program by absolute path (fork adds the variables of the IPC channel itself), and
 * JSONata cannot read it anyway; but a process's environment is readable in `/proc/<pid>/environ` by
 * anyone who can read its memory, and the host's holds credentials (a kubeconfig path, tokens).
 * The arena limit is no secret, and glibc reads it only from the environment: without it, each of an
 * evaluator's threads (its watchdog among them) may get an allocator arena of its own, as the `loom`
 * command (`cli/bin.ts`) avoids for the host. So the host's value is passed on, and `2`, the `loom`
 * command's default, where the host has none. `host` is the environment loom runs in.
 */
export function sandboxEnv(host: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { MALLOC_ARENA_MAX: host.MALLOC_ARENA_MAX ?? DEFAULT_ARENAS };
}
