/**
 * A scaffold works as written: `loom validate` finds nothing in it and `loom render` on it prints
 * exactly its render golden, for every hook choice and controller kind. The TypeScript hook is
 * loaded for real (`--hook-module hook.ts`), so this also proves it answers as the JSONata twin its
 * golden was rendered from.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_FILE, renderArgs } from './init-golden.ts';
import type { HookLanguage } from './init-names.ts';
import { linkNodeModules, runInitIn, temporaryDirectories } from './init.test-support.ts';
import { runWith } from './render.test-support.ts';
import { validateFiles } from './validate.ts';

const dirs = temporaryDirectories();
afterAll(() => dirs.removeAll());

interface Variant {
  hook: HookLanguage;
  decorator: boolean;
  files: string[];
}

const MANIFESTS = ['crd.yaml', 'controller.yaml', 'example.yaml', GOLDEN_FILE, 'package.json', '.gitignore', 'README.md'];
const TYPESCRIPT = ['hook.ts', 'hook.test.ts', 'tsconfig.json'];

const VARIANTS: Variant[] = [
  { hook: 'jsonata', decorator: false, files: MANIFESTS },
  { hook: 'jsonata', decorator: true, files: MANIFESTS },
  { hook: 'typescript', decorator: false, files: [...MANIFESTS, ...TYPESCRIPT] },
  { hook: 'typescript', decorator: true, files: [...MANIFESTS, ...TYPESCRIPT] },
];

/** A scaffold of `variant` for the kind WebApp, in a new directory with node_modules linked. */
async function scaffold(variant: Variant): Promise<string> {
  const dir = await dirs.make();
  const run = await runInitIn(dir, ['--kind', 'WebApp', '--hook', variant.hook, ...(variant.decorator ? ['--decorator'] : [])]);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  await linkNodeModules(dir);
  return dir;
}

describe.each(VARIANTS)('loom init --hook $hook (decorator: $decorator)', (variant) => {
  let dir = '';
  beforeAll(async () => {
    dir = await scaffold(variant);
  });

  it('writes the files of its choice', async () => {
    expect((await readdir(dir)).filter((name) => name !== 'node_modules').sort()).toEqual([...variant.files].sort());
  });

  it('passes loom validate with no problem and no warning', async () => {
    const result = await validateFiles([join(dir, 'controller.yaml')]);
    expect(result).toMatchObject({ problems: [], warnings: [], checked: 1 });
  });

  it('renders exactly its golden, with only the notes that the example has no uid and its Ready condition no time', async () => {
    const run = await runWith(renderArgs(variant.hook), { dir: pathToFileURL(`${dir}/`) });
    // A composite scaffold asks for loom's Ready condition, whose lastTransitionTime a render leaves out.
    const noTime = variant.decorator ? '' : 'note: status.conditions: the Ready condition has no lastTransitionTime: loom sets it to the time of its status write\n';
    expect(run.stderr).toBe(`note: example.yaml: metadata.uid is not set; using 00000000-0000-0000-0000-000000000000\n${noTime}`);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(await readFile(join(dir, GOLDEN_FILE), 'utf8'));
  });

  it('renders the ConfigMap for the example, and its status', async () => {
    const golden = await readFile(join(dir, GOLDEN_FILE), 'utf8');
    expect(golden).toContain(`${variant.decorator ? 'attachments' : 'children'}:\n  - apiVersion: v1\n    kind: ConfigMap\n`);
    expect(golden).toContain('message: Hello from web-app-sample\n');
    expect(golden).toContain('status:\n  ready: false\n');
  });
});
