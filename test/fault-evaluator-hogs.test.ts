/**
 * Evaluator hogs, on the real control plane with `loom run` as a process of its own: two controllers
 * whose JSONata expressions backtrack for their whole 30 s budget on every call, and a healthy JSONata
 * controller beside them (issue: the two runaways held both evaluator processes, and every other
 * JSONata hook waited about 30 s per call). What is kept: the healthy controller's parents converge
 * while the runaways run; the evaluators carry none of loom's secrets (a SECRET_TOKEN set on loom)
 * and run under Node's permission model; and when loom is killed with SIGKILL in the middle of their
 * regexes, the evaluators exit instead of running on for hours. Prints the healthy convergence time.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { childPids, isRunning, spawnLoom, type LoomProcess } from './support/loom-process.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'evaluator-hogs';
const KIND = TEST_PARENT_KINDS.hog;
const HEALTHY_PARENTS = 10;
const RUNAWAY = '{"r": $contains($pad("", 30, "a") & "!", /^(a+)+\\1?$/)}';
const HEALTHY = '{"children": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": parent.metadata.name & "-ok"}, "data": {"ok": "yes"}}]}';
const SECRET = 'loom-hogs-secret-token';

let clients: TestClients;
let namespace: string;
let loom: LoomProcess | undefined;

const controller = (name: string, expression: string, timeout: string): KubeObject => ({
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name, labels: { 'loom-test': LABEL } },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { role: name } } },
    childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
    hooks: { sync: { jsonata: { expression, timeout } } },
  },
});
const parent = (name: string, role: string): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels: { role } }, spec: {} });

/** CPU seconds `pid` has used (utime + stime of /proc/<pid>/stat, in ticks of 1/100 s); 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const procStrings = (pid: number, file: string): string[] => readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0').filter(Boolean);

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  for (const name of ['runaway-a', 'runaway-b']) await clients.apply(controller(name, RUNAWAY, '30s'));
  await clients.apply(controller('healthy', HEALTHY, '500ms'));
});

afterAll(async () => {
  await loom?.kill();
});

describe('two controllers whose expressions run away, beside a healthy one', () => {
  it('keeps the healthy controller converging, the evaluators bare, and ends them with a killed loom', async () => {
    loom = await spawnLoom(LABEL, ['--workers', '5'], undefined, { SECRET_TOKEN: SECRET });
    for (const role of ['runaway-a', 'runaway-b']) {
      for (let i = 0; i < 3; i++) await clients.apply(parent(`${role}-${i}`, role));
    }
    // Both evaluators deep in the runaways' regexes: each has computed for seconds.
    const busy = await eventually(async () => {
      const pids = childPids(loom!.pid).filter((pid) => cpuSeconds(pid) >= 2);
      return Promise.resolve(pids.length >= 2 ? pids : undefined);
    }, 'two evaluators busy in the runaway expressions', 90_000);

    for (const pid of busy) {
      expect(procStrings(pid, 'environ').join('\n')).not.toMatch(/SECRET_TOKEN|KUBECONFIG|loom-hogs-secret/);
      expect(procStrings(pid, 'cmdline')).toContain('--permission');
    }

    const started = systemClock.now();
    for (let i = 0; i < HEALTHY_PARENTS; i++) await clients.apply(parent(`healthy-${i}`, 'healthy'));
    await eventually(async () => {
      if (!isRunning(loom!.pid)) throw new Error(`loom exited:\n${loom!.logTail()}`);
      const list = await clients.client.request<{ items: KubeObject[] }>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/configmaps` });
      return list.items.filter((c) => c.metadata.name?.endsWith('-ok')).length >= HEALTHY_PARENTS || undefined;
    }, `the healthy controller's ${HEALTHY_PARENTS} children beside the runaways`, 90_000);
    console.log(`healthy JSONata controller: ${HEALTHY_PARENTS} parents converged in ${systemClock.now() - started} ms beside two runaway controllers (30 s budgets)`);

    // SIGKILL: loom runs no shutdown code; the evaluators, some held by a regex, must see it themselves.
    // Killed while an evaluator is deep in a regex again (those stopped to make room were replaced).
    await eventually(async () => Promise.resolve(childPids(loom!.pid).some((pid) => cpuSeconds(pid) >= 2) || undefined), 'an evaluator busy in a regex', 90_000);
    const evaluators = childPids(loom.pid);
    await loom.kill();
    await eventually(async () => Promise.resolve(evaluators.every((pid) => !isRunning(pid)) || undefined), 'the orphaned evaluators to exit', 60_000);
  }, 300_000);
});
