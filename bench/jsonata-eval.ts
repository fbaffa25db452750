/**
 * What loom's bounds cost a JSONata hook. One `web-app` sync expression (a WebApp parent → Deployment,
 * Service and PodDisruptionBudget, status rolled up from the observed Deployment) evaluated for a parent
 * with its 3 children observed, one evaluation at a time on one thread, two ways:
 * - baseline: plain `jsonata` evaluate of the same expression, with loom's helpers registered;
 * - loom: the bounded runner's `call()` (time and depth budget, abort check, result as plain JSON).
 * Prints evaluations per second and p50/p99 latency of each, and the ratio. Rounds alternate between the
 * two so both see the same machine; throughput is the median round, latencies are over all rounds.
 * Targets: loom ≥ 8,000/s, p99 ≤ 1 ms, and under 25% slower than the baseline.
 * Run with `npm run bench:jsonata [-- evaluationsPerRound rounds]` (default 20000 5); `taskset -c 0`
 * pins it to one core.
 */
import jsonata from 'jsonata';
import { compileJsonataHook } from '../src/hooks/index.ts';
import { JSONATA_HELPERS } from '../src/hooks/jsonata-helpers.ts';

const perRound = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 5);
const WARMUP = 5_000;

const EXPRESSION = `(
  $name := parent.metadata.name;
  $spec := parent.spec;
  $port := $exists($spec.port) ? $spec.port : 8080;
  $labels := { "app.kubernetes.io/name": $name, "app.kubernetes.io/managed-by": "loom" };
  $deployment := $child(children, "Deployment.apps/v1", $name);
  $available := $deployment.status.conditions[type = "Available"];
  {
    "children": [
      {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": { "name": $name, "labels": $labels },
        "spec": {
          "replicas": $exists($spec.replicas) ? $spec.replicas : 1,
          "selector": { "matchLabels": $labels },
          "template": {
            "metadata": { "labels": $labels, "annotations": { "loom.dev/config-hash": $hash($spec.env) } },
            "spec": { "containers": [{
              "name": "web", "image": $spec.image,
              "ports": [{ "name": "http", "containerPort": $port }],
              "env": $each($spec.env, function($value, $key) { { "name": $key, "value": $value } })
            }] }
          }
        }
      },
      {
        "apiVersion": "v1", "kind": "Service",
        "metadata": { "name": $name, "labels": $labels },
        "spec": { "selector": $labels, "ports": [{ "name": "http", "port": 80, "targetPort": $port }] }
      },
      {
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": { "name": $dnsName($name, "pdb"), "labels": $labels },
        "spec": { "minAvailable": $exists($spec.minAvailable) ? $spec.minAvailable : 1, "selector": { "matchLabels": $labels } }
      }
    ],
    "status": {
      "observedGeneration": parent.metadata.generation,
      "replicas": $exists($deployment.status.replicas) ? $deployment.status.replicas : 0,
      "readyReplicas": $exists($deployment.status.readyReplicas) ? $deployment.status.readyReplicas : 0,
      "available": $available.status = "True",
      "message": $available.message,
      "children": $count($keys(children."Deployment.apps/v1")) + $count($keys(children."Service.v1")) + $count($keys(children."PodDisruptionBudget.policy/v1"))
    }
  }
)`;

const labels = { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/managed-by': 'loom' };
function observed(apiVersion: string, kind: string, name: string, body: object): object {
  return {
    apiVersion, kind, ...body,
    metadata: {
      name, namespace: 'default', uid: `${kind.toLowerCase()}-uid`, resourceVersion: '4711', generation: 2, labels,
      creationTimestamp: '2025-01-01T00:00:00Z',
      ownerReferences: [{ apiVersion: 'apps.example.com/v1', kind: 'WebApp', name: 'web', uid: 'parent-uid', controller: true, blockOwnerDeletion: true }],
      managedFields: [{ manager: 'loom', operation: 'Apply', apiVersion, time: '2025-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': {} }, 'f:spec': {} } }],
    },
  };
}

const REQUEST = {
  controller: { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'web-app' }, spec: { generateSelector: true } },
  parent: {
    apiVersion: 'apps.example.com/v1', kind: 'WebApp',
    metadata: { name: 'web', namespace: 'default', uid: 'parent-uid', generation: 3, resourceVersion: '4700' },
    spec: { image: 'nginx:1.27', replicas: 3, port: 8080, minAvailable: 2, env: { LOG_LEVEL: 'info', MODE: 'production', REGION: 'eu-west-1' } },
  },
  children: {
    'Deployment.apps/v1': {
      web: observed('apps/v1', 'Deployment', 'web', {
        spec: { replicas: 3 },
        status: {
          observedGeneration: 2, replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2,
          conditions: [
            { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
            { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet "web-5d9c" has successfully progressed.' },
          ],
        },
      }),
    },
    'Service.v1': { web: observed('v1', 'Service', 'web', { spec: { clusterIP: '10.0.0.10', ports: [{ name: 'http', port: 80, targetPort: 8080 }] } }) },
    'PodDisruptionBudget.policy/v1': { 'web-pdb': observed('policy/v1', 'PodDisruptionBudget', 'web-pdb', { spec: { minAvailable: 2 }, status: { currentHealthy: 2 } }) },
  },
  related: {},
  finalizing: false,
};

interface Round { perSecond: number; latenciesMs: number[] }

async function round(evaluate: () => Promise<unknown>, n: number): Promise<Round> {
  const latenciesMs = new Array<number>(n);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await evaluate();
    latenciesMs[i] = performance.now() - t;
  }
  return { perSecond: (n / (performance.now() - start)) * 1000, latenciesMs };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

function summary(results: Round[]): { perSecond: number; p50: number; p99: number } {
  const throughputs = results.map((r) => r.perSecond).toSorted((a, b) => a - b);
  const latencies = results.flatMap((r) => r.latenciesMs).toSorted((a, b) => a - b);
  return { perSecond: throughputs[Math.floor(throughputs.length / 2)]!, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const plain = jsonata(EXPRESSION);
for (const helper of JSONATA_HELPERS) plain.registerFunction(helper.name, helper.implementation);
const runner = compileJsonataHook({ expression: EXPRESSION, hook: 'sync', timeoutMs: 1_000, clock: { now: () => Date.now() } });
const signal = new AbortController().signal;
const variants = {
  baseline: () => plain.evaluate(REQUEST),
  loom: () => runner.call(REQUEST, signal),
};

// Same result both ways, or the comparison means nothing.
const expected = JSON.stringify(await variants.baseline());
if (JSON.stringify(await variants.loom()) !== expected) throw new Error('the runner and plain jsonata disagree');

const results: Record<keyof typeof variants, Round[]> = { baseline: [], loom: [] };
for (const evaluate of Object.values(variants)) await round(evaluate, WARMUP);
for (let i = 0; i < rounds; i++) {
  for (const [name, evaluate] of Object.entries(variants)) results[name as keyof typeof variants].push(await round(evaluate, perRound));
}

const base = summary(results.baseline);
const loom = summary(results.loom);
const line = (name: string, s: typeof base) =>
  `${name.padEnd(26)} ${Math.round(s.perSecond).toString().padStart(6)} evaluations/s   p50 ${s.p50.toFixed(3)} ms   p99 ${s.p99.toFixed(3)} ms`;
console.log(`web-app sync expression, parent with 3 children; ${rounds} rounds of ${perRound} evaluations each, one at a time`);
console.log(line('plain jsonata (baseline)', base));
console.log(line('loom bounded runner', loom));
console.log(`ratio loom/baseline: throughput ${(loom.perSecond / base.perSecond).toFixed(3)}, p99 ${(loom.p99 / base.p99).toFixed(3)}` +
  ` (overhead ${((1 - loom.perSecond / base.perSecond) * 100).toFixed(1)}%)`);
