/**
 * helm for the chart's tests: built from Go modules by scripts/build-helm.sh (cached outside the
 * repository, so only the first run pays), and `helm template` of charts/loom parsed into objects.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadAll } from 'js-yaml';
import type { KubeObject } from '../../src/api/index.ts';

const run = promisify(execFile);
const REPO = new URL('../../', import.meta.url).pathname;
/** The chart under test. */
export const CHART = `${REPO}charts/loom`;

/** The helm binary's path, building it on first use. */
export async function helmBinary(): Promise<string> {
  const { stdout } = await run('bash', [`${REPO}scripts/build-helm.sh`], { maxBuffer: 1 << 20 });
  return stdout.trim();
}

/** `helm <args>`'s standard output. */
export async function helm(binary: string, args: string[]): Promise<string> {
  const { stdout } = await run(binary, args, { maxBuffer: 16 << 20 });
  return stdout;
}

/** The chart rendered for `release` in `namespace` with `values` (a JSON object is valid YAML). */
export async function renderChart(binary: string, release: string, namespace: string, values: object): Promise<KubeObject[]> {
  const dir = await mkdtemp(join(tmpdir(), 'loom-chart-values-'));
  try {
    await writeFile(join(dir, 'values.yaml'), JSON.stringify(values));
    const text = await helm(binary, ['template', release, CHART, '--namespace', namespace, '--include-crds', '--values', join(dir, 'values.yaml')]);
    return loadAll(text).filter((doc): doc is KubeObject => typeof doc === 'object' && doc !== null);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The loom container's arguments in a rendered Deployment. */
export function deploymentArgs(objects: readonly KubeObject[]): string[] {
  const deployment = objects.find((o) => o.kind === 'Deployment');
  const containers = (deployment?.spec as { template?: { spec?: { containers?: { name: string; args?: string[] }[] } } } | undefined)?.template?.spec?.containers;
  const args = containers?.find((c) => c.name === 'loom')?.args;
  if (!args) throw new Error('the rendered chart has no Deployment with a loom container and args');
  return args;
}
