/**
 * Golden tests of `loom render`: each case runs the command on the fixtures of one folder of
 * `testdata/render/` and compares stdout with `<case>.yaml` and stderr with `<case>.stderr` (empty
 * when that file does not exist), exactly. `UPDATE_GOLDEN=1` rewrites the files from the output;
 * review the diff before keeping it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseDir, helloHookServer, runWith } from './render.test-support.ts';

const UPDATE = process.env.UPDATE_GOLDEN === '1';

interface GoldenCase {
  /** Folder under testdata/render. */
  dir: 'jsonata' | 'webhook' | 'module' | 'sdk-module';
  /** Name of the expected files. */
  golden: string;
  args: string[];
}

const jsonata = ['--controller', 'controller.yaml', '--parent', 'parent.yaml', '--related', 'related.yaml'];
const webhook = ['--controller', 'controller.yaml', '--parent', 'parent.yaml'];
const finalize = ['--controller', 'controller.yaml', '--parent', 'parent-deleting.yaml'];
const decorator = ['--controller', 'controller.yaml', '--parent', 'service.yaml', '--hook-module', 'hook.ts'];
const sdkComposite = [...webhook, '--hook-module', 'hook.ts'];
const observed = ['--observed', 'observed.yaml'];

const CASES: GoldenCase[] = [
  { dir: 'jsonata', golden: 'out', args: jsonata },
  { dir: 'jsonata', golden: 'out-observed', args: [...jsonata, ...observed] },
  { dir: 'jsonata', golden: 'out-observed-dynamic', args: [...jsonata, ...observed, '--apply-strategy', 'dynamic-apply'] },
  { dir: 'webhook', golden: 'out', args: webhook },
  { dir: 'webhook', golden: 'out-observed', args: [...webhook, ...observed] },
  { dir: 'webhook', golden: 'out-finalize', args: finalize },
  { dir: 'webhook', golden: 'out-finalize-observed', args: [...finalize, ...observed] },
  { dir: 'module', golden: 'out', args: decorator },
  { dir: 'module', golden: 'out-observed', args: [...decorator, ...observed] },
  { dir: 'sdk-module', golden: 'out', args: sdkComposite },
  { dir: 'sdk-module', golden: 'out-observed', args: [...sdkComposite, ...observed] },
];

let server: FastifyInstance;
let port = 0;

beforeAll(async () => {
  server = helloHookServer();
  port = Number(new URL(await server.listen({ host: '127.0.0.1', port: 0 })).port);
});

afterAll(async () => {
  await server.close();
});

async function expectGolden(file: URL, actual: string): Promise<void> {
  if (UPDATE) {
    if (actual === '') await rm(file, { force: true });
    else await writeFile(file, actual);
    return;
  }
  expect(actual).toBe(existsSync(file) ? await readFile(file, 'utf8') : '');
}

describe('loom render golden outputs', () => {
  it.each(CASES)('$dir/$golden', async ({ dir, golden, args }) => {
    const run = await runWith(args, { dir: caseDir(dir), port });
    expect(run.code).toBe(0);
    await expectGolden(new URL(`${golden}.yaml`, caseDir(dir)), run.stdout);
    await expectGolden(new URL(`${golden}.stderr`, caseDir(dir)), run.stderr);
  });

  it('renders the same with a module exporting a function that returns { app }', async () => {
    const args = [...decorator.map((a) => (a === 'hook.ts' ? 'hook-factory.ts' : a)), ...observed];
    const run = await runWith(args, { dir: caseDir('module') });
    expect(run).toEqual({ code: 0, stdout: await readFile(new URL('out-observed.yaml', caseDir('module')), 'utf8'), stderr: '' });
  });

  it('runs end to end as `node src/cli/main.ts render …`', () => {
    const main = fileURLToPath(new URL('main.ts', import.meta.url));
    const dir = fileURLToPath(caseDir('jsonata'));
    const result = spawnSync(process.execPath, [main, 'render', ...jsonata, ...observed], { cwd: dir, encoding: 'utf8' });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    expect(result.stdout).toBe(readFileSync(new URL('out-observed.yaml', caseDir('jsonata')), 'utf8'));
  });
});

