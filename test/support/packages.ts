/**
 * The two packed packages (`scripts/pack.sh`), built once per integration run and shared by the test
 * files that install them. Packing compiles the whole project with tsc, which takes a minute on a
 * busy machine; the sources do not change during a run, so a second pack would make the same files.
 */
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const run = promisify(execFile);
const REPO = new URL('../..', import.meta.url).pathname;

/** Where the tarballs are. */
export interface PackedPackages {
  dir: string;
  /** `kube-loom-sdk-<version>.tgz` */
  sdk: string;
  /** `kube-loom-<version>.tgz` */
  host: string;
}

/**
 * Packs into the run's packages directory unless an earlier test file did. Test files run in
 * processes of their own, so they take turns on a file lock; the marker is written only after a
 * complete pack, so a failed one is tried again by the next caller.
 */
export async function packedPackages(): Promise<PackedPackages> {
  const dir = inject('packagesDir');
  const pack = `[ -e "$1/.packed" ] || { bash "$2/scripts/pack.sh" "$1" >/dev/null && touch "$1/.packed"; }`;
  await run('flock', [`${dir}.lock`, 'bash', '-c', pack, 'pack', dir, REPO]);
  const files = await readdir(dir);
  return { dir, sdk: join(dir, tarball(files, 'kube-loom-sdk-')), host: join(dir, tarball(files, 'kube-loom-')) };
}

function tarball(files: readonly string[], prefix: string): string {
  const file = files.find((f) => f.startsWith(prefix) && /^\d/.test(f.slice(prefix.length)) && f.endsWith('.tgz'));
  if (!file) throw new Error(`scripts/pack.sh made no ${prefix}*.tgz`);
  return file;
}
