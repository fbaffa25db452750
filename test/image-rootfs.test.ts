/**
 * The image's payload, run as the image runs it: `scripts/image-rootfs.sh` lays out what the root
 * Dockerfile copies (the packed packages installed with --omit=dev), and `loom run` starts from there
 * — compiled JavaScript, no sources, no devDependencies — against the local control plane. It
 * converges a controller calling the hello example's hook (a webhook) and an inline JSONata controller
 * (which runs in evaluator processes whose entry must be found in the compiled package), then stops
 * on SIGTERM as a kubelet stops it, exiting 0. Both controllers take this file's own parent kind, told
 * apart by a label, so no other test's hello parents are theirs.
 */
import { execFile } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { exampleManifests, pointedAt, startExampleHook, type ExampleHook } from './support/example-hook.ts';
import { spawnLoom, type LoomProcess } from './support/loom-process.ts';
import { packedPackages } from './support/packages.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const run = promisify(execFile);
const LABEL = 'image-rootfs';
const KIND = TEST_PARENT_KINDS.imagePayload;
const REPO = new URL('..', import.meta.url).pathname;

let work: string;
let clients: TestClients;
let namespace: string;
let hook: ExampleHook | undefined;
let loom: LoomProcess | undefined;

const configMap = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });

/** The parents labelled `hook: <hook>`, a kind of this file's own. */
const parentResource = (hook: string) => ({ apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { hook } } });
const parent = (name: string, hook: string): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels: { hook } }, spec: { who: 'image' } });

const jsonataController: KubeObject = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name: 'image-rootfs-jsonata', labels: { 'loom-test': LABEL } },
  spec: {
    generateSelector: true,
    parentResource: parentResource('jsonata'),
    childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
    hooks: { sync: { jsonata: { expression: '{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-evaluated" }, "data": { "sum": $string(1 + 2) } }] }' } } },
  },
};

/** The hello example's controller, renamed and given this file's parents, calling the hook at `url`. */
async function webhookController(url: string): Promise<KubeObject> {
  const [hello] = await exampleManifests('hello', 'controller.yaml');
  const controller = pointedAt(hello!, url, { 'loom-test': LABEL });
  return { ...controller, metadata: { ...controller.metadata, name: 'image-rootfs-webhook' }, spec: { ...(controller.spec as Record<string, unknown>), parentResource: parentResource('webhook') } };
}

// A guard against hangs only: packing compiles the whole project, which takes minutes on a busy machine,
// and this file may be waiting for the other one that installs the packages to finish packing.
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'loom-image-rootfs-'));
  const rootfs = join(work, 'rootfs');
  await run('bash', [join(REPO, 'scripts/image-rootfs.sh'), rootfs, (await packedPackages()).dir]);
  const entry = join(rootfs, 'opt/loom/node_modules/kube-loom/dist/src/cli/bin.js');
  await access(entry);
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  hook = await startExampleHook('hello');
  await clients.apply(await webhookController(hook.url));
  await clients.apply(jsonataController);
  loom = await spawnLoom(LABEL, [], entry);
}, 600_000);

afterAll(async () => {
  await loom?.kill();
  await hook?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('loom run from the image payload', () => {
  it('converges a controller calling the hello example\'s webhook', async () => {
    await clients.apply(parent('webhook', 'webhook'));
    const child = await eventually(() => configMap('webhook-greeting'), 'the hello hook\'s child', 60_000);
    expect(child.data).toEqual({ greeting: 'Hello, image!' });
  });

  it('evaluates an inline JSONata hook in its evaluator processes', async () => {
    await clients.apply(parent('jsonata', 'jsonata'));
    const child = await eventually(() => configMap('jsonata-evaluated'), 'the JSONata child', 60_000);
    expect(child.data).toEqual({ sum: '3' });
  });

  it('exits 0 on SIGTERM, as a kubelet stops the container', async () => {
    const exit = await loom!.terminate();
    expect(exit, loom!.logTail()).toEqual({ code: 0, signal: null });
  });
});
