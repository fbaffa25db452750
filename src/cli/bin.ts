#!/usr/bin/env node
/**
 * The installed `loom` command. The package installs on Node 20 and later because its SDK entry point
 * runs there, but the host needs Node 24: check that before loading the host, whose dependencies
 * would otherwise fail on older Node with an error about some internal module.
 *
 * `loom run` (and `loom dev`) need two settings that only take effect when a process starts
 * (docs/running-loom.md, "Memory"), so the command replaces itself once (`execve`: same PID, no
 * second process) with a Node that has them, unless they are already given:
 * - `--max-semi-space-size=8`: V8 sizes its heap once. Node 24 lets the young generation grow to
 *   32 MiB per semi-space on a machine with gigabytes of memory, and a host churning through watch
 *   events and hook answers fills it, which cost about 100 MiB of resident memory at 5,000 parents;
 *   8 MiB keeps short-lived garbage cheap to collect at no measurable CPU cost.
 * - `MALLOC_ARENA_MAX=2`: glibc gives each of Node's threads its own allocator arena, and the
 *   fragments they keep cost another 16 MiB at 5,000 parents; two arenas are plenty for one event loop.
 * (A `#!/usr/bin/env -S …` first line would do the same, but BusyBox's `env`, Alpine's, has no `-S`.)
 */
import module from 'node:module';

const MIN_NODE_MAJOR = 24;
const SEMI_SPACE_FLAG = '--max-semi-space-size';

/** `run` (also when only flags are given) and `dev`: the commands that run a host for long. */
function runsHost(args: readonly string[]): boolean {
  const [first] = args;
  if (first === 'run' || first === 'dev') return true;
  return first !== undefined && first.startsWith('--') && first !== '--help' && first !== '--version';
}

function hasSemiSpaceFlag(): boolean {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((arg) => arg.startsWith(SEMI_SPACE_FLAG));
}

const major = Number(process.versions.node.split('.')[0]);
if (major < MIN_NODE_MAJOR) {
  process.stderr.write(`loom: the loom command needs Node.js ${MIN_NODE_MAJOR} or later; this is ${process.version} (kube-loom-sdk runs on Node 20 and later)\n`);
  process.exitCode = 1;
} else {
  const args = process.argv.slice(2);
  if (runsHost(args) && !hasSemiSpaceFlag() && process.execve) {
    process.execve(process.execPath, [process.execPath, `${SEMI_SPACE_FLAG}=8`, ...process.execArgv, ...process.argv.slice(1)], {
      ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    });
  }
  // V8's compiled code for loom and its dependencies, kept in the temporary directory: a restarted
  // process (a container restart, the next command) skips most of compiling them again. Where the
  // directory is not writable Node goes on without it.
  module.enableCompileCache?.();
  await import('./main.ts');
}
