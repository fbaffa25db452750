/**
 * Runs a loom host in the test process against the test control plane. Each test file gives its
 * controller objects its own label and its host a matching `--target-label-selector`, so hosts of
 * test files running side by side never run each other's controllers.
 */
import { pino } from 'pino';
import { inject } from 'vitest';
import type { KubeObject } from '../../src/api/index.ts';
import { installCrds } from '../../src/cli/install-crds.ts';
import { systemClock } from '../../src/engine/index.ts';
import { createObjectWriter, createRestClient, discover, type ObjectWriter, type RequestObserver, type RestClient } from '../../src/kube/index.ts';
import { runLoom, type LoomConfig } from '../../src/main.ts';
import { testKubeConfig } from './cluster.ts';

/** A host running for one test file. */
export interface TestLoom {
  stop(): Promise<void>;
  /** Where `/metrics` is served, when the overrides gave a `metricsAddress`. */
  metricsPort?: number | undefined;
}

/** Starts loom for controllers labelled `loom-test=<label>`. */
export async function startTestLoom(label: string, overrides: Partial<LoomConfig> = {}, observeRequests?: RequestObserver): Promise<TestLoom> {
  const config: LoomConfig = {
    kubeconfig: inject('kubeconfigPath'),
    workers: 2, applyStrategy: 'server-side-apply', fieldManager: 'loom',
    discoveryIntervalMs: 2_000, cacheFlushIntervalMs: 0, clientQps: 200, clientBurst: 400,
    metricsAddress: undefined, probeAddress: undefined,
    targetSelector: { matchLabels: { 'loom-test': label } },
    eventsQps: 1 / 300, eventsBurst: 25,
    // Any namespace, as `--reference-namespaces=*` (the bare CLI allows none): each test file keeps its
    // webhook Secrets and expression ConfigMaps in a namespace of its own, whose name is generated.
    referenceNamespaces: undefined,
    // Circuit breakers off (`--hook-circuit-failures=0`): the fault tests break one parent after another
    // at one hook URL and read each failure's own message; test/hook-resilience.test.ts turns them on.
    hookCircuit: { failures: 0, openMs: 30_000, maxOpenMs: 300_000 },
    ...overrides,
  };
  const stop = new AbortController();
  const running = await runLoom({ config, logger: pino({ level: process.env.LOOM_TEST_LOG ?? 'silent' }), signal: stop.signal, ...(observeRequests ? { observeRequests } : {}) });
  return {
    metricsPort: running.metricsPort,
    async stop() {
      stop.abort();
      await running.done;
    },
  };
}

/** Clients for test set-up, with loom's CRDs installed. */
export interface TestClients {
  client: RestClient;
  /** Resolves types from a discovery snapshot; call `refresh()` after creating a CRD. */
  writer: ObjectWriter;
  refresh(): Promise<void>;
  /** Server-side apply as the test's own field manager (discovery refreshed when a kind is new). */
  apply(obj: KubeObject): Promise<KubeObject>;
}

/** Creates the clients and installs loom's CRDs. */
export async function testClients(): Promise<TestClients> {
  const client = createRestClient({ kubeConfig: testKubeConfig() });
  await installCrds(client, systemClock, 'loom-test');
  let snapshot = await discover(client);
  // The tests write as someone other than loom: without a manager of their own, the API server would
  // record the first word of the client's User-Agent, `loom`, and loom would take their fields over.
  const writer = createObjectWriter(client, (apiVersion, kind) => {
    const type = snapshot.byKind(apiVersion, kind);
    if (!type) throw new Error(`unknown ${kind}.${apiVersion}`);
    return type;
  }, 'loom-test');
  const refresh = async (): Promise<void> => {
    snapshot = await discover(client);
  };
  const apply = async (obj: KubeObject): Promise<KubeObject> => {
    if (!snapshot.byKind(obj.apiVersion, obj.kind)) await refresh();
    return writer.apply(obj, { fieldManager: 'loom-test' });
  };
  return { client, writer, refresh, apply };
}

/** One `status.conditions[]` entry of a controller object. */
export interface ControllerCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** The `Ready` condition loom keeps on a CompositeController (or `kind`), or `undefined` while it has none. */
export async function readyCondition(clients: TestClients, name: string, kind = 'CompositeController'): Promise<ControllerCondition | undefined> {
  const obj = await clients.writer.get({ apiVersion: 'metacontroller.k8s.io/v1alpha1', kind, name });
  return (obj?.status as { conditions?: ControllerCondition[] } | undefined)?.conditions?.find((c) => c.type === 'Ready');
}
