/**
 * Inline JSONata hooks on the real control plane: an expression in the manifest syncs children and
 * status with no service at all; an expression that does not compile keeps that controller from
 * starting (event and Ready=False with the position) while another keeps running; an expression held
 * in a ConfigMap takes effect when the ConfigMap changes; a runaway expression fails only its sync.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { readyCondition, startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'jsonata';
const KIND = TEST_PARENT_KINDS.jsonata;
let clients: TestClients;
let loom: TestLoom;
let namespace: string;

/** One ConfigMap per parent whose `greeting` comes from the parent; status counts observed ConfigMaps. */
const GREETER = `{
  "children": [{
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": { "name": parent.metadata.name & "-greeting" },
    "data": { "greeting": "hello " & parent.spec.who }
  }],
  "status": { "observed": $count($keys(children."ConfigMap.v1")) }
}`;

function controller(name: string, sync: object, parentMode: string): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name, labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { mode: parentMode } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      hooks: { sync: { jsonata: sync } },
    },
  };
}

const parent = (name: string, mode: string, who = 'world'): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels: { mode } }, spec: { who } });
const configMap = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const readyOf = (name: string) => readyCondition(clients, name);

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  loom = await startTestLoom(LABEL);
});

afterAll(async () => {
  await loom?.stop();
});

describe('JSONata hooks', () => {
  it('sync children and status from an inline expression', async () => {
    await clients.apply(controller('jsonata-inline', { expression: GREETER }, 'inline'));
    await clients.apply(parent('inline', 'inline'));
    const child = await eventually(() => configMap('inline-greeting'), 'the child');
    expect(child.data).toEqual({ greeting: 'hello world' });
    await eventually(async () => {
      const p = await clients.writer.get({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, namespace, name: 'inline' });
      return (p?.status as { observed?: number } | undefined)?.observed === 1 || undefined;
    }, 'the status to count the child');
    expect(await eventually(() => readyOf('jsonata-inline'), 'Ready')).toMatchObject({ status: 'True' });
  });

  it('keep a controller whose expression does not compile from starting, saying where', async () => {
    await clients.apply(controller('jsonata-broken', { expression: '{\n  "children": [ parent.metadata.name & ]\n}' }, 'broken'));
    const ready = await eventually(async () => {
      const r = await readyOf('jsonata-broken');
      return r?.status === 'False' ? r : undefined;
    }, 'Ready=False');
    expect(ready.reason).toBe('CompileError');
    expect(ready.message).toMatch(/line 2, column \d+/);
    // The line, column and message only: no JavaScript stack of the jsonata library.
    expect(ready.message, ready.message).not.toMatch(/\n\s*at |\.js:\d+/);
    await clients.apply(parent('broken', 'broken'));
    await clients.apply(parent('still-working', 'inline'));
    await eventually(() => configMap('still-working-greeting'), 'the other controller to keep working');
    expect(await configMap('broken-greeting')).toBeUndefined();
  });

  it('pick up an edited ConfigMap-held expression without a restart', async () => {
    const source = (greeting: string): KubeObject => ({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'greeter-source', namespace },
      data: { sync: GREETER.replace('"hello "', `"${greeting} "`) },
    });
    await clients.apply(source('hello'));
    await clients.apply(controller('jsonata-configmap', { configMapRef: { namespace, name: 'greeter-source', key: 'sync' } }, 'configmap'));
    await clients.apply(parent('from-cm', 'configmap'));
    await eventually(async () => ((await configMap('from-cm-greeting'))?.data as { greeting?: string } | undefined)?.greeting === 'hello world' || undefined, 'the first greeting');
    await clients.apply(source('howdy'));
    await eventually(async () => ((await configMap('from-cm-greeting'))?.data as { greeting?: string } | undefined)?.greeting === 'howdy world' || undefined, 'the edited greeting');
  });

  it('fail only the sync of a runaway expression, keeping the children', async () => {
    const runaway = `parent.spec.who = "loop" ? ($f := function($n) { $f($n + 1) }; $f(0)) : ${GREETER}`;
    await clients.apply(controller('jsonata-runaway', { expression: runaway, timeout: '200ms' }, 'runaway'));
    await clients.apply(parent('runaway', 'runaway'));
    const before = await eventually(() => configMap('runaway-greeting'), 'the child before the loop');
    await clients.apply(parent('runaway', 'runaway', 'loop'));
    const events = await eventually(async () => {
      const list = await clients.client.request<{ items: { reason: string; message: string }[] }>({
        method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, query: { fieldSelector: 'involvedObject.name=runaway' },
      });
      const errors = list.items.filter((e) => e.reason === 'SyncError');
      return errors.length > 0 ? errors : undefined;
    }, 'a SyncError for the runaway expression');
    expect(events[0]!.message).toMatch(/maximum depth|timed out/);
    const after = await configMap('runaway-greeting');
    expect(after?.metadata.uid).toBe(before.metadata.uid);
  });
});

describe('JSONata hooks that would end or hold the process evaluating them', () => {
  /** How a call ends that the evaluator pool stopped to give another controller's hook a process. */
  const STOPPED_FOR_ANOTHER = "so that another controller's hook could run";
  /**
   * Each of these, evaluated in loom's own process, killed it (V8 fatal error, heap) or held it for
   * minutes. Each case accepts every bound that can stop it, so the message does not depend on the
   * machine's speed: "fatal" reaches V8's abort in under a second on an idle machine, but a loaded one
   * took longer than 500 ms and the budget won the race, so it gets a large budget and the budget is
   * accepted too, as is the heap limit; "backtrack" can only meet its budget (it runs for minutes).
   */
  const HOSTILE = {
    fatal: { expression: '{"n": $count($split($pad("a", 150000000), ""))}', timeout: '30s', says: /built a value larger than JavaScript allows|exceeded the memory limit of 256 MiB|timed out after 30000 ms; its evaluator process was stopped/ },
    // Filling the heap and the budget are both bounds of this one: either may come first.
    huge: { expression: '{"n": $length($pad("x", 500000000))}', timeout: '5s', says: /exceeded the memory limit of 256 MiB|timed out after 5000 ms; its evaluator process was stopped/ },
    backtrack: { expression: '{"r": $contains($pad("", 30, "a") & "!", /^(a+)+\\1?$/)}', timeout: '5s', says: /timed out after 5000 ms; its evaluator process was stopped/ },
  };
  /** A guard against a hang, well past the largest budget above: not a speed target. */
  const HOSTILE_WAIT_MS = 120_000;
  const hostile = Object.entries(HOSTILE).reduce((rest, [who, { expression }]) => `parent.spec.who = "${who}" ? ${expression} : ${rest}`, GREETER);

  const syncErrors = async (name: string) => {
    const list = await clients.client.request<{ items: { reason: string; message: string }[] }>({
      method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, query: { fieldSelector: `involvedObject.name=${name}` },
    });
    return list.items.filter((e) => e.reason === 'SyncError');
  };

  it.each(Object.entries(HOSTILE))('fail only the sync of "%s", keeping its child, while another controller converges', async (who, { timeout, says }) => {
    // A controller of its own, for this case's budget.
    const name = `hostile-${who}`;
    await clients.apply(controller(`jsonata-${name}`, { expression: hostile, timeout }, name));
    await clients.apply(parent(name, name));
    const before = await eventually(() => configMap(`${name}-greeting`), 'the child before the hostile expression');
    await clients.apply(parent(name, name, who));
    const errors = await eventually(async () => {
      const found = await syncErrors(name);
      return found.length > 0 ? found : undefined;
    }, `a SyncError for "${who}"`, HOSTILE_WAIT_MS);
    // Or, whichever comes first, stopped because another controller's hook waited for a process: the
    // point is that only this sync fails.
    expect(errors[0]!.message).toMatch(new RegExp(`${says.source}|${STOPPED_FOR_ANOTHER}`));
    console.log(`hostile "${who}" (budget ${timeout}): ${errors[0]!.message}`);
    // The host is alive and another controller's new parent converges.
    await clients.apply(parent(`beside-${who}`, 'inline'));
    await eventually(() => configMap(`beside-${who}-greeting`), 'the other controller to converge');
    const after = await configMap(`${name}-greeting`);
    expect(after?.metadata.uid).toBe(before.metadata.uid);
    expect(after?.data).toEqual(before.data);
    // No more retries of this case's expression beside the next case's.
    await clients.writer.delete({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, namespace, name });
  }, 2 * HOSTILE_WAIT_MS);
});
