/**
 * The TypeScript scaffold as its user meets it after `npm install`: its own tsconfig accepts hook.ts
 * and hook.test.ts against the SDK, and its unit tests pass under vitest. Both run as child
 * processes in the scaffold's directory, with this repository's node_modules linked in.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linkNodeModules, REPO, runInitIn, temporaryDirectories } from './init.test-support.ts';

const dirs = temporaryDirectories();
afterAll(() => dirs.removeAll());

/** The environment without vitest's own variables, so the inner vitest starts as from a shell, and without colours. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'NODE_OPTIONS' && name !== 'FORCE_COLOR');
  return { ...Object.fromEntries(inherited), NO_COLOR: '1' };
}

/** Runs `node SCRIPT ARGS` in `cwd`, as the scaffold's npm scripts would. */
function node(cwd: string, script: string, ...args: string[]) {
  return spawnSync(process.execPath, [join(REPO, script), ...args], { cwd, encoding: 'utf8', env: cleanEnvironment(), timeout: 120_000 });
}

describe.each([
  ['composite', []],
  ['decorator', ['--decorator']],
])('the TypeScript %s scaffold', (_kind, flags) => {
  it('type-checks with its own tsconfig and passes its own unit tests', async () => {
    const dir = await dirs.make();
    expect(await runInitIn(dir, ['--kind', 'WebApp', '--hook', 'typescript', ...flags])).toMatchObject({ code: 0 });
    await linkNodeModules(dir);

    const tsc = node(dir, 'node_modules/typescript/bin/tsc', '-p', '.');
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);

    const vitest = node(dir, 'node_modules/vitest/vitest.mjs', 'run', '--root', '.', '--reporter', 'verbose');
    expect(vitest.status, vitest.stdout + vitest.stderr).toBe(0);
    expect(vitest.stdout).toMatch(/Tests\s+4 passed \(4\)/);
  }, 180_000);
});
