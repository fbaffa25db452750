/**
 * What `loom run` loads. The host runs for weeks, so it should not hold what only other commands use:
 * fastify (the hook SDK, `render`, `plan`), a YAML parser (it reads no kubeconfig in a cluster),
 * JSONata (until a controller has an expression), `@kubernetes/client-node`, and the undici that Node
 * bundles for `fetch` (listed as `node:undici`). Checked in a fresh Node process whose module hook
 * records every package loaded; `loom validate`, which does parse YAML, shows the hook sees what it should.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = resolve(import.meta.dirname, 'main.ts');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loom-run-imports-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Prints, at exit, the names of the npm packages the process loaded. */
const RECORD_PACKAGES = `
  import { registerHooks } from 'node:module';
  const packages = new Set();
  registerHooks({ resolve(specifier, context, next) {
    const result = next(specifier, context);
    const match = /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(result.url);
    if (match) packages.add(match[1]);
    return result;
  } });
  process.on('exit', () => {
    if (process.moduleLoadList.some((name) => name.includes('undici'))) packages.add('node:undici');
    process.stderr.write('PACKAGES ' + JSON.stringify([...packages]) + '\\n');
  });
`;

/** Runs `loom args…` until it exits, with KUBECONFIG naming a file that is not there, and lists the packages it loaded. */
function packagesLoadedBy(args: string[]): string[] {
  const child = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(RECORD_PACKAGES)}`, MAIN, ...args], {
    encoding: 'utf8', timeout: 60_000, env: { ...process.env, KUBECONFIG: join(dir, 'missing') },
  });
  const line = child.stderr.split('\n').find((l) => l.startsWith('PACKAGES '));
  if (!line) throw new Error(`no package list (exit ${child.status}): ${child.stderr}`);
  return JSON.parse(line.slice('PACKAGES '.length)) as string[];
}

describe('loom run', () => {
  it('loads neither fastify, a YAML parser, JSONata, client-node nor undici before it has a reason to', () => {
    const loaded = packagesLoadedBy(['run']);
    expect(loaded).toContain('pino');
    expect(loaded.filter((name) => ['fastify', 'js-yaml', 'jsonata', '@kubernetes/client-node', '@opentelemetry/api', '@opentelemetry/sdk-trace', 'node:undici'].includes(name))).toEqual([]);
  });

  it('is measured by a hook that sees a command load js-yaml', async () => {
    const manifest = join(dir, 'controller.yaml');
    await writeFile(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
    expect(packagesLoadedBy(['validate', manifest])).toContain('js-yaml');
  });
});
