/**
 * What the `loom init` tests share: running the command into a fresh temporary directory with its
 * output captured, and giving a scaffold this repository's node_modules, where `kube-loom-sdk` is
 * the in-repo SDK, as `npm install` would give it the published one.
 */
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInit } from './init.ts';

/** This repository's root. */
export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** What one `loom init` printed and its exit code. */
export interface InitRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `loom init ARGS` in `cwd`. */
export async function runInitIn(cwd: string, args: readonly string[]): Promise<InitRun> {
  let stdout = '';
  let stderr = '';
  const code = await runInit(args, { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, cwd });
  return { code, stdout, stderr };
}

/** A new empty temporary directory; `removeAll` deletes every one made. */
export function temporaryDirectories(): { make(): Promise<string>; removeAll(): Promise<void> } {
  const made: string[] = [];
  return {
    async make() {
      const dir = await mkdtemp(join(tmpdir(), 'loom-init-'));
      made.push(dir);
      return dir;
    },
    async removeAll() {
      await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

/** Links this repository's node_modules into `dir`, standing in for `npm install`. */
export async function linkNodeModules(dir: string): Promise<void> {
  await symlink(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
}
