/**
 * helm for the chart's tests: built from Go modules by scripts/build-helm.sh (cached outside the
 * repository, so only the first run pays), and releases of charts/loom installed with it.
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

/** Runs `use` with `values` written to a file (a JSON object is valid YAML). */
async function withValuesFile<T>(values: object, use: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'loom-chart-values-'));
  try {
    await writeFile(join(dir, 'values.yaml'), JSON.stringify(values));
    return await use(join(dir, 'values.yaml'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Where a release goes. */
export interface ReleaseTarget {
  release: string;
  namespace: string;
  kubeconfig: string;
}

/**
 * `helm install`s the chart with `values` (without waiting: no pod can start where there is no kubelet)
 * and returns the objects of the installed manifest.
 */
export async function installRelease(binary: string, target: ReleaseTarget, values: object): Promise<KubeObject[]> {
  const where = ['--namespace', target.namespace, '--kubeconfig', target.kubeconfig];
  await withValuesFile(values, (file) => helm(binary, ['install', target.release, CHART, ...where, '--values', file]));
  const manifest = await helm(binary, ['get', 'manifest', target.release, ...where]);
  return loadAll(manifest).filter((doc): doc is KubeObject => typeof doc === 'object' && doc !== null);
}

/** `helm uninstall`: removes what the release made (its ClusterRoles too), but not the CRDs. */
export async function uninstallRelease(binary: string, target: ReleaseTarget): Promise<void> {
  await helm(binary, ['uninstall', target.release, '--namespace', target.namespace, '--kubeconfig', target.kubeconfig]);
}

/** The loom container's arguments in a rendered Deployment. */
export function deploymentArgs(objects: readonly KubeObject[]): string[] {
  const deployment = objects.find((o) => o.kind === 'Deployment');
  const containers = (deployment?.spec as { template?: { spec?: { containers?: { name: string; args?: string[] }[] } } } | undefined)?.template?.spec?.containers;
  const args = containers?.find((c) => c.name === 'loom')?.args;
  if (!args) throw new Error('the rendered chart has no Deployment with a loom container and args');
  return args;
}
