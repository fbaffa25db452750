/**
 * What the benchmarks count and how they wait: the API server's own request counter
 * (`apiserver_request_total`), and small helpers to write in batches and to wait for a state.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { systemClock } from '../src/engine/index.ts';

const exec = promisify(execFile);

/** API requests as the API server counted them: `VERB resource[/subresource]` → count. */
export type RequestCounts = Map<string, number>;

/** Runs `work` over `items`, `concurrency` at a time. */
export async function inBatches<T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/** Resolves once `condition` holds, asking every `everyMs`. */
export async function until(condition: () => Promise<boolean>, everyMs = 200): Promise<void> {
  while (!(await condition())) await systemClock.sleep(everyMs);
}

/** The API server's request counter, `VERB resource[/subresource]` → count, over writes and GETs (not lists or watches). */
export async function apiServerRequests(kubeconfig: string): Promise<RequestCounts> {
  const { stdout } = await exec('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', '/metrics'], { maxBuffer: 256 * 1024 * 1024 });
  const counts: RequestCounts = new Map();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const label = (name: string): string => new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1] ?? '';
    const verb = label('verb');
    if (['LIST', 'WATCH', 'CONNECT'].includes(verb) || label('dry_run')) continue;
    const subresource = label('subresource');
    const code = label('code');
    const key = `${verb} ${label('resource')}${subresource ? `/${subresource}` : ''}${code.startsWith('2') ? '' : ` (${code})`}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/** What `after` counted that `before` had not, for the requests `ours` matches (the resources a bench touches). */
export function requestsIn(before: RequestCounts, after: RequestCounts, ours: RegExp): RequestCounts {
  const diff: RequestCounts = new Map();
  for (const [key, count] of after) {
    const delta = count - (before.get(key) ?? 0);
    if (delta > 0 && ours.test(key)) diff.set(key, delta);
  }
  return diff;
}

/** The sum of the counts `filter` picks. */
export function total(counts: RequestCounts, filter: (key: string) => boolean = () => true): number {
  return [...counts].filter(([key]) => filter(key)).reduce((sum, [, n]) => sum + n, 0);
}

/** Whether a count's key is a write (anything but a GET). */
export const isWrite = (key: string): boolean => !key.startsWith('GET ');

/** A namespaced CRD of parents that take any spec and have a status subresource. */
export function benchCrd(group: string, kind: string, plural: string): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}
