/**
 * The image's payload, run as the image runs it: `scripts/image-rootfs.sh` lays out what the root
 * Dockerfile copies (the packed packages installed with --omit=dev), and `loom run` starts from there
 * — compiled JavaScript, no sources, no devDependencies — against the local control plane. It
 * converges the hello example (a webhook) and an inline JSONata controller (which runs in evaluator
 * processes whose entry must be found in the compiled package), then stops on SIGTERM as a kubelet
 * stops it, exiting 0.
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

const configMap = (name: string) => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name }).catch(() => undefined);

const jsonataController: KubeObject = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
  metadata: { name: 'image-rootfs-jsonata', labels: { 'loom-test': LABEL } },
  spec: {
    generateSelector: true,
    parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
    childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
    hooks: { sync: { jsonata: { expression: '{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name & "-evaluated" }, "data": { "sum": $string(1 + 2) } }] }' } } },
  },
};

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'loom-image-rootfs-'));
  const rootfs = join(work, 'rootfs');
  await run('bash', [join(REPO, 'scripts/image-rootfs.sh'), rootfs]);
  const entry = join(rootfs, 'opt/loom/node_modules/kube-loom/dist/src/cli/bin.js');
  await access(entry);
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  hook = await startExampleHook('hello');
  const [hello] = await exampleManifests('hello', 'controller.yaml');
  await clients.apply(pointedAt(hello!, hook.url, { 'loom-test': LABEL }));
  await clients.apply(jsonataController);
  loom = await spawnLoom(LABEL, [], entry);
}, 240_000);

afterAll(async () => {
  await loom?.kill();
  await hook?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('loom run from the image payload', () => {
  it('converges the hello example through its webhook', async () => {
    await clients.apply({ apiVersion: 'examples.loom.dev/v1', kind: 'HelloWorld', metadata: { name: 'payload', namespace }, spec: { who: 'image' } });
    const child = await eventually(() => configMap('payload-greeting'), 'the hello child', 60_000);
    expect(child.data).toEqual({ greeting: 'Hello, image!' });
  });

  it('evaluates an inline JSONata hook in its evaluator processes', async () => {
    await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'payload', namespace } });
    const child = await eventually(() => configMap('payload-evaluated'), 'the JSONata child', 60_000);
    expect(child.data).toEqual({ sum: '3' });
  });

  it('exits 0 on SIGTERM, as a kubelet stops the container', async () => {
    const exit = await loom!.terminate();
    expect(exit, loom!.logTail()).toEqual({ code: 0, signal: null });
  });
});
