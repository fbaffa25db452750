/**
 * charts/loom without a cluster: `helm lint`; `helm template` against golden files for the default
 * values and each testdata/*.values.yaml (Metacontroller's among them); the chart's CRDs are loom's;
 * every `loom run` flag has a value, and every value is in the README's table; and the arguments the
 * Deployment passes are ones loom itself accepts.
 * `UPDATE_GOLDEN=1` rewrites the golden files from the output. The chart on a real control plane, with
 * its RBAC, is test/helm-chart.test.ts.
 *
 * The tests that run helm need it built, which takes Go and minutes: `make helm` does it (and `make unit`
 * and `make test` before the tests, passing its path as `LOOM_HELM`). Where it is not built, as in a bare
 * `npm run test:unit` on a fresh clone, they are skipped with that reason rather than building it inside
 * a test, where a slow build would fail them on its hook timeout.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { loadAll } from 'js-yaml';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/index.ts';
import { parseGoFlags } from '../../src/cli/go-flags.ts';
import { RUN_FLAG_SPEC, RUN_FLAGS, runConfig } from '../../src/cli/run-config.ts';
import { CHART, deploymentArgs, helm } from '../../test/support/helm.ts';

const UPDATE = process.env.UPDATE_GOLDEN === '1';
const TESTDATA = new URL('testdata/', import.meta.url);
const CASES = ['default', ...readdirSync(TESTDATA).filter((f) => f.endsWith('.values.yaml')).map((f) => f.slice(0, -'.values.yaml'.length))];
/** Flags the chart sets from values of other names, or not at all (a Pod uses its ServiceAccount). */
const NOT_IN_RUN_FLAGS: Record<string, string> = {
  kubeconfig: 'in-cluster config', context: 'in-cluster config',
  'discovery-interval': 'discoveryInterval', 'cache-flush-interval': 'cacheFlushInterval', 'health-probe-bind-address': 'probes.port',
  'zap-log-level': 'zap.logLevel', 'zap-devel': 'zap.devel', 'zap-encoder': 'zap.encoder',
  'zap-stacktrace-level': 'zap.stacktraceLevel', 'zap-time-encoding': 'zap.timeEncoding',
};

const NOT_BUILT = 'helm is not built: run `make helm` (`make unit` and `make test` build it first)';

/**
 * The helm to run: `LOOM_HELM` (set by `make unit`, so there the tests cannot be skipped), else the
 * one scripts/build-helm.sh has built and cached, else none (''). It never builds one.
 */
async function builtHelm(): Promise<string> {
  if (process.env.LOOM_HELM) return process.env.LOOM_HELM;
  const script = new URL('../../scripts/build-helm.sh', import.meta.url).pathname;
  return promisify(execFile)('bash', [script, '--cached']).then(({ stdout }) => stdout.trim(), () => '');
}

let binary = '';
const rendered = new Map<string, string>();

const objectsOf = (name: string): KubeObject[] => loadAll(rendered.get(name) ?? '') as KubeObject[];

interface Container {
  name: string;
  command?: string[];
  securityContext?: Record<string, unknown>;
}

/** The loom container of the rendered Deployment. */
function container(objects: readonly KubeObject[]): Container {
  const spec = objects.find((o) => o.kind === 'Deployment')?.spec as { template: { spec: { containers: Container[] } } };
  return spec.template.spec.containers.find((c) => c.name === 'loom')!;
}

describe('charts/loom', () => {
  it('ships loom\'s CRDs', () => {
    const crds = readdirSync(new URL('crds/', `file://${CHART}/`));
    expect(crds).toEqual(readdirSync(new URL('../../src/api/crds/', import.meta.url)));
    for (const file of crds) {
      expect(readFileSync(`${CHART}/crds/${file}`, 'utf8'), file).toBe(readFileSync(new URL(`../../src/api/crds/${file}`, import.meta.url), 'utf8'));
    }
  });

  it('has a value for every loom run flag', () => {
    const values = loadAll(readFileSync(`${CHART}/values.yaml`, 'utf8'))[0] as { runFlags: Record<string, unknown> };
    const missing = Object.keys(RUN_FLAGS).filter((flag) => !(flag in values.runFlags) && !(flag in NOT_IN_RUN_FLAGS));
    expect(missing).toEqual([]);
  });

  it('documents every top-level value in the values table of its README', () => {
    const values = loadAll(readFileSync(`${CHART}/values.yaml`, 'utf8'))[0] as Record<string, unknown>;
    const readme = readFileSync(`${CHART}/README.md`, 'utf8');
    const table = readme.slice(readme.indexOf('## Values'), readme.indexOf('\n## ', readme.indexOf('## Values') + 1));
    expect(Object.keys(values).filter((key) => !table.includes(`\`${key}\``) && !table.includes(`\`${key}.`))).toEqual([]);
  });
});

describe('charts/loom rendered by helm', () => {
  beforeAll(async () => {
    binary = await builtHelm();
    if (binary === '') return;
    for (const name of CASES) {
      const values = name === 'default' ? [] : ['--values', new URL(`${name}.values.yaml`, TESTDATA).pathname];
      rendered.set(name, await helm(binary, ['template', 'loom', CHART, '--namespace', 'loom-system', ...values]));
    }
  });
  beforeEach(({ skip }) => skip(binary === '', NOT_BUILT));

  it('passes helm lint', async () => {
    expect(await helm(binary, ['lint', CHART, '--strict'])).toContain('0 chart(s) failed');
  });

  it.each(CASES)('renders %s values as its golden file', (name) => {
    const golden = new URL(`${name}.golden.yaml`, TESTDATA);
    if (UPDATE) writeFileSync(golden, rendered.get(name) ?? '');
    expect(rendered.get(name)).toBe(readFileSync(golden, 'utf8'));
  });

  it.each(CASES)('passes loom arguments it accepts, for %s values', (name) => {
    const [command, ...flags] = deploymentArgs(objectsOf(name));
    expect(command).toBe('run');
    const { values, positionals } = parseGoFlags(flags, RUN_FLAG_SPEC);
    expect(positionals).toEqual([]);
    expect(runConfig(values).referenceNamespaces).toEqual(['loom-system']);
  });

  it('shares the parents among more than one replica, with Leases in the release namespace, and a PodDisruptionBudget', () => {
    const config = (name: string) => runConfig(parseGoFlags(deploymentArgs(objectsOf(name)).slice(1), RUN_FLAG_SPEC).values, { identity: 'pod' });
    expect(config('replicas').sharding).toEqual({ namespace: 'loom-system', group: 'metacontroller', identity: 'pod', buckets: 16, leaseDurationMs: 15_000 });
    expect(config('replicas').leaderElection).toBeUndefined();
    expect(objectsOf('replicas').map((o) => o.kind)).toContain('PodDisruptionBudget');
    expect(config('default').sharding).toBeUndefined();
    expect(config('default').leaderElection).toBeUndefined();
    expect(objectsOf('default').map((o) => o.kind)).not.toContain('PodDisruptionBudget');
  });

  it('lets controllers name Secrets and ConfigMaps in the release namespace by default, and in any with "*"', async () => {
    const configOf = (rendering: string) => runConfig(parseGoFlags(deploymentArgs(loadAll(rendering) as KubeObject[]).slice(1), RUN_FLAG_SPEC).values, { identity: 'pod' });
    expect(configOf(rendered.get('default') ?? '').referenceNamespaces).toEqual(['loom-system']);
    const any = await helm(binary, ['template', 'loom', CHART, '--namespace', 'loom-system', '--set-string', 'runFlags.reference-namespaces=*']);
    expect(configOf(any).referenceNamespaces).toBeUndefined();
  });

  it('sizes the container memory limit for loom plus every evaluator process at its worst, unless a limit is given', async () => {
    // An evaluator with a V8 heap limit of H MiB was measured at up to 574 MiB resident with H = 256:
    // the chart counts 2 H + memory.evaluatorOverheadMiB per evaluator, on top of memory.hostMiB.
    const limitOf = async (...set: string[]) => {
      const objects = loadAll(await helm(binary, ['template', 'loom', CHART, '--namespace', 'loom-system', ...set])) as KubeObject[];
      return (container(objects) as Container & { resources: { limits: { memory: string } } }).resources.limits.memory;
    };
    expect(await limitOf()).toBe(`${768 + 2 * (2 * 256 + 128)}Mi`);
    expect(await limitOf('--set-string', 'runFlags.jsonata-processes=4', '--set-string', 'runFlags.jsonata-memory-limit=512', '--set', 'memory.hostMiB=1024', '--set', 'memory.evaluatorOverheadMiB=64')).toBe(`${1024 + 4 * (2 * 512 + 64)}Mi`);
    expect(await limitOf('--set', 'resources.limits.memory=3Gi')).toBe('3Gi');
  });

  it('may delete Leases, in the release namespace when scoped: replicas remove the member Leases of those gone', () => {
    interface Rule { apiGroups: string[]; resources: string[]; verbs: string[] }
    const leaseVerbs = (name: string, kind: string) => (objectsOf(name).filter((o) => o.kind === kind) as (KubeObject & { rules: Rule[] })[])
      .flatMap((role) => role.rules)
      .filter((rule) => rule.apiGroups.some((g) => g === 'coordination.k8s.io' || g === '*') && rule.resources.some((r) => r === 'leases' || r === '*'))
      .flatMap((rule) => rule.verbs);
    expect(leaseVerbs('scoped', 'Role')).toEqual(expect.arrayContaining(['get', 'list', 'create', 'update', 'delete']));
    expect(objectsOf('scoped').find((o) => o.kind === 'Role')?.metadata.namespace).toBe('loom-system');
    expect(leaseVerbs('default', 'ClusterRole')).toContain('*');
  });

  it('refuses more than one replica with sharding turned off and no leader election', async () => {
    const render = helm(binary, ['template', 'loom', CHART, '--set', 'replicas=2', '--set-string', 'runFlags.shards=0']);
    await expect(render).rejects.toThrow('would run every controller on every replica');
  });

  it('elects a leader instead of sharding when Metacontroller\'s commandArgs ask for it', () => {
    const config = runConfig(parseGoFlags(deploymentArgs(objectsOf('metacontroller')).slice(1), RUN_FLAG_SPEC).values, { identity: 'pod' });
    expect(config.leaderElection).toEqual({ namespace: 'loom-system', name: 'metacontroller', identity: 'pod' });
    expect(config.sharding).toBeUndefined();
  });

  it('takes the values of Metacontroller\'s chart: its command counts as the image\'s, commandArgs come last', () => {
    const objects = objectsOf('metacontroller');
    expect(container(objects).command).toBeUndefined();
    const args = deploymentArgs(objects);
    expect(args.slice(-4)).toEqual(['--zap-log-level=4', '--discovery-interval=20s', '--cache-flush-interval=30m', '--leader-election']);
    const { values } = parseGoFlags(args.slice(1), RUN_FLAG_SPEC);
    expect(runConfig(values, { identity: 'pod' }).leaderElection?.namespace).toBe('loom-system');
    expect(objects.map((o) => o.kind)).toContain('PodDisruptionBudget');
    // Its empty security contexts leave loom's locked-down defaults in place.
    expect(container(objects).securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
  });

  it('takes the separate flag values of older Metacontroller charts: zap, discoveryInterval, cacheFlushInterval', () => {
    const args = deploymentArgs(objectsOf('metacontroller-zap'));
    expect(args.slice(-2)).toEqual(['--client-go-qps=100', '--client-go-burst=200']);
    expect(args).toEqual(expect.arrayContaining(['--zap-log-level=4', '--discovery-interval=10s', '--cache-flush-interval=10m']));
  });
});
