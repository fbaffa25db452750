/**
 * A running controller edited into one that cannot run keeps running its last good spec, on the real
 * control plane: an expression that does not compile, a spec loom refuses, a child type discovery
 * does not serve, and a ConfigMap-held expression edited into a broken one. Each time the controller
 * object says why (`Ready=False`, the reason, and which generation still runs) while its parents keep
 * being synced by the old spec; once the spec is fixed, the new one takes over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { readyCondition, startTestLoom, testClients, type TestClients, type TestLoom } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'last-good';
const KIND = TEST_PARENT_KINDS.lastGood;
let clients: TestClients;
let loom: TestLoom;
let namespace: string;

/** One ConfigMap per parent whose `greeting` is `<word> <spec.who>`. */
const greeter = (word: string): string => `{
  "children": [{
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": { "name": parent.metadata.name & "-greeting" },
    "data": { "greeting": "${word} " & parent.spec.who }
  }]
}`;

/** Does not compile: the line ends inside a concatenation. */
const BROKEN = '{\n  "children": [ parent.metadata.name & ]\n}';

function controller(name: string, sync: object, edit: (spec: Record<string, unknown>) => void = () => undefined): KubeObject {
  const spec: Record<string, unknown> = {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { controller: name } } },
    childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
    hooks: { sync: { jsonata: sync } },
  };
  edit(spec);
  return { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name, labels: { 'loom-test': LABEL } }, spec };
}

const parent = (name: string, controllerName: string, who: string): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels: { controller: controllerName } }, spec: { who } });

async function greetingOf(name: string): Promise<string | undefined> {
  const child = await clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-greeting` });
  return (child?.data as { greeting?: string } | undefined)?.greeting;
}

const greets = (name: string, greeting: string) => eventually(async () => ((await greetingOf(name)) === greeting ? true : undefined), `${name} to greet "${greeting}"`);

/** The controller's Ready condition once `accept` takes it. */
const readyWhen = (name: string, accept: (c: { status: string; reason: string; message: string }) => boolean, what: string) =>
  eventually(async () => {
    const ready = await readyCondition(clients, name);
    return ready && accept(ready) ? ready : undefined;
  }, what);

const generationOf = async (name: string): Promise<number | undefined> =>
  (await clients.writer.get({ apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', name }))?.metadata.generation;

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  loom = await startTestLoom(LABEL);
});

afterAll(async () => {
  await loom?.stop();
});

describe('a running controller edited into one that cannot run', () => {
  it.each([
    ['an expression that does not compile', 'CompileError', (name: string) => controller(name, { expression: BROKEN })],
    ['a spec loom refuses', 'InvalidSpec', (name: string) => controller(name, { expression: greeter('hi') }, (spec) => {
      (spec.childResources as Array<Record<string, unknown>>)[0]!.readyWhen = ' \n ';
    })],
    ['a child type discovery does not serve', 'CreateError', (name: string) => controller(name, { expression: greeter('hi') }, (spec) => {
      (spec.childResources as Array<Record<string, unknown>>)[0]!.resource = 'configmapz';
    })],
  ])('keeps running its last good spec after %s, says so, and takes the fixed spec', async (_what, reason, broken) => {
    const name = `last-good-${reason.toLowerCase()}`;
    await clients.apply(controller(name, { expression: greeter('hello') }));
    await clients.apply(parent(`${name}-p`, name, 'world'));
    await greets(`${name}-p`, 'hello world');
    const good = await generationOf(name);

    await clients.apply(broken(name));
    const ready = await readyWhen(name, (c) => c.status === 'False', 'Ready=False');
    expect(ready.reason).toBe(reason);
    expect(ready.message).toContain(`the controller keeps running its last good spec (generation ${good})`);
    // The old spec still syncs: an edit of the parent reaches its child.
    await clients.apply(parent(`${name}-p`, name, 'again'));
    await greets(`${name}-p`, 'hello again');

    await clients.apply(controller(name, { expression: greeter('howdy') }));
    await readyWhen(name, (c) => c.status === 'True', 'Ready=True');
    await greets(`${name}-p`, 'howdy again');
  });

  it('keeps running its last good expression when its ConfigMap is edited into one that does not compile', async () => {
    const name = 'last-good-configmap';
    const source = (expression: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-source`, namespace }, data: { sync: expression } });
    await clients.apply(source(greeter('hello')));
    await clients.apply(controller(name, { configMapRef: { namespace, name: `${name}-source`, key: 'sync' } }));
    await clients.apply(parent(`${name}-p`, name, 'world'));
    await greets(`${name}-p`, 'hello world');

    await clients.apply(source(BROKEN));
    const ready = await readyWhen(name, (c) => c.status === 'False', 'Ready=False');
    expect(ready.reason).toBe('CompileError');
    expect(ready.message).toContain('the controller keeps running its last good spec (generation 1)');
    await clients.apply(parent(`${name}-p`, name, 'again'));
    await greets(`${name}-p`, 'hello again');

    await clients.apply(source(greeter('howdy')));
    await readyWhen(name, (c) => c.status === 'True', 'Ready=True');
    await greets(`${name}-p`, 'howdy again');
  });
});
