/**
 * The packages as a user gets them: `scripts/pack.sh` packs `kube-loom-sdk` and `kube-loom`; each is
 * installed from its tarball into a fresh project outside the repository, where a hook written on the
 * SDK (test/testdata/package-user) is unit-tested with `testHook`, type-checked, served, and rendered
 * with the installed `loom render`. The SDK runs on this project's Node 24 and on an older Node (the
 * system's Node 20 here; `LOOM_TEST_OLDER_NODE` names another); the `loom` command needs Node 24.
 * Nothing here needs the control plane: render runs offline, calling the served hook.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHookProcess } from './support/example-hook.ts';
import { packedPackages } from './support/packages.ts';

const run = promisify(execFile);
const REPO = new URL('..', import.meta.url).pathname;
const USER_FILES = join(REPO, 'test/testdata/package-user');
const OLDER_NODE = process.env.LOOM_TEST_OLDER_NODE ?? '/usr/bin/node';
const NODES = { 'Node 24': process.execPath, 'the older Node': OLDER_NODE } as const;
const INSTALL_FLAGS = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];

let work: string;
/** Where the SDK alone is installed, and where both packages are. */
let sdkProject: string;
let cliProject: string;

async function newProject(name: string, tarballs: string[]): Promise<string> {
  const dir = join(work, name);
  await cp(USER_FILES, dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  await run('npm', [...INSTALL_FLAGS, ...tarballs], { cwd: dir });
  return dir;
}

/** `loom …` as the installed command, run by `node`. */
function loom(node: string, args: string[]) {
  return run(node, [join(cliProject, 'node_modules/.bin/loom'), ...args], { cwd: cliProject });
}

// A guard against hangs only: packing compiles the whole project, which takes minutes on a busy machine,
// and this file may be waiting for the other one that installs the packages to finish packing.
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'loom-package-'));
  const { sdk, host } = await packedPackages();
  sdkProject = await newProject('sdk-user', [sdk]);
  cliProject = await newProject('cli-user', [sdk, host]);
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('kube-loom-sdk, installed alone', () => {
  it('brings fastify and pino and nothing of the host', async () => {
    const installed = await readdir(join(sdkProject, 'node_modules'));
    expect(installed).toEqual(expect.arrayContaining(['kube-loom-sdk', 'fastify', 'pino']));
    for (const hostOnly of ['kube-loom', '@kubernetes', 'jsonata', 'js-yaml']) expect(installed).not.toContain(hostOnly);
  });

  it('has .d.ts files a TypeScript hook type-checks against', async () => {
    const tsconfig = {
      compilerOptions: {
        module: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false,
        types: ['node'], typeRoots: [join(REPO, 'node_modules/@types')],
      },
      files: ['hook-types.ts'],
    };
    await writeFile(join(sdkProject, 'tsconfig.json'), JSON.stringify(tsconfig));
    await expect(run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', sdkProject])).resolves.toBeDefined();
  });

  it('is a Node older than 24 that the older-Node cases run on', async () => {
    const { stdout } = await run(OLDER_NODE, ['--version']);
    expect(Number(/^v(\d+)/.exec(stdout)?.[1]), `${OLDER_NODE} is ${stdout.trim()}: set LOOM_TEST_OLDER_NODE to a Node 20 or 22`).toBeLessThan(24);
  });

  it.each(Object.entries(NODES))('runs the user\'s unit tests (testHook) on %s', async (_name, node) => {
    const { stdout } = await run(node, ['--test', '--test-reporter=tap', 'hook.test.js'], { cwd: sdkProject });
    expect(stdout).toMatch(/^# pass 2$/m);
    expect(stdout).toMatch(/^# fail 0$/m);
  });
});

describe('kube-loom, installed with the SDK', () => {
  it.each(Object.entries(NODES))('renders the children of a hook served on %s with the installed loom render', async (_name, node) => {
    const hook = await startHookProcess({ node, script: 'hook.js', cwd: sdkProject, name: 'package user' });
    try {
      const controller = (await readFile(join(USER_FILES, 'controller.yaml'), 'utf8')).replace('HOOK_URL', hook.url);
      await writeFile(join(cliProject, 'controller.yaml'), controller);
      const { stdout } = await loom(process.execPath, ['render', '--controller', 'controller.yaml', '--parent', 'parent.yaml']);
      expect(stdout).toContain('name: earth-greeting');
      expect(stdout).toContain('greeting: Hello, Earth!');
    } finally {
      await hook.stop();
    }
  });

  it('knows its version from the installed package', async () => {
    const { version } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect((await loom(process.execPath, ['--version'])).stdout).toBe(`loom ${version}\n`);
  });

  it('says the loom command needs Node 24 when started on an older Node', async () => {
    const failed = await loom(OLDER_NODE, ['--help']).then(() => undefined, (err: { code: number; stderr: string }) => err);
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/^loom: the loom command needs Node\.js 24 or later; this is v\d+/);
  });
});
