/**
 * What Metacontroller makes of loom's ordering and policy fields: a manifest and a hook that use them,
 * run by a real Metacontroller on the local control plane with Metacontroller's own CRDs. Metacontroller
 * must do what it does without them: create every child at once (the loom annotations written as any
 * annotation), write the hook's status, follow an edit, and let the garbage collector take the children
 * with their parent. Prints each check and exits non-zero when one fails.
 *
 * Run with `npm run bench:metacontroller-compat -- <metacontroller binary> <metacontroller-crds-v1.yaml>`:
 * build the binary from metacontroller/metacontroller at v4.17.2 with
 * `CGO_ENABLED=0 go build ./pkg/cmd/metacontroller`; the CRDs are its `manifests/production/metacontroller-crds-v1.yaml`.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { loadAll } from 'js-yaml';
import type { KubeObject } from '../src/api/index.ts';
import { startControlPlane } from '../src/devcluster/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createRestClient, loadKubeConfig, writerFromDiscovery, type ObjectWriter } from '../src/kube/index.ts';

const { positionals } = parseArgs({ allowPositionals: true });
const [binary, crdFile] = positionals;
if (!binary || !crdFile) throw new Error('usage: metacontroller-compat.ts <metacontroller binary> <metacontroller-crds-v1.yaml>');

const GROUP = 'compat.loom.dev';
const NAMESPACE = 'default';
const parentCrd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `apps.${GROUP}` },
  spec: {
    group: GROUP, scope: 'Namespaced', names: { plural: 'apps', singular: 'app', kind: 'App', listKind: 'AppList' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

/** Every loom field a manifest may carry: on child types, and the parent's Ready condition. */
const controller = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'compat' },
  spec: {
    generateSelector: true, readyCondition: true,
    parentResource: { apiVersion: `${GROUP}/v1`, resource: 'apps' },
    childResources: [
      { apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' }, wave: 0, readyWhen: 'true', deletionPolicy: 'Delete', onImmutableChange: 'Recreate', adopt: 'IfExists' },
      { apiVersion: 'v1', resource: 'secrets', updateStrategy: { method: 'InPlace' }, wave: 1 },
    ],
    hooks: { sync: { webhook: { url: '' } } },
  },
};

/** The hook answers a ConfigMap and a Secret that carry every loom annotation. */
function answer(parent: KubeObject): object {
  const name = parent.metadata.name ?? '';
  const value = String((parent.spec as { value?: string } | undefined)?.value ?? '');
  return {
    status: { value },
    children: [
      {
        apiVersion: 'v1', kind: 'ConfigMap', data: { value },
        metadata: { name: `${name}-config`, annotations: { 'loom.dev/wave': '0', 'loom.dev/ready-when': '$exists(data)', 'loom.dev/deletion-policy': 'Delete', 'loom.dev/on-immutable-change': 'Recreate' } },
      },
      {
        apiVersion: 'v1', kind: 'Secret', stringData: { value },
        metadata: { name: `${name}-secret`, annotations: { 'loom.dev/wave': '1', 'loom.dev/depends-on': `ConfigMap/${name}-config` } },
      },
    ],
  };
}

let failed = 0;
function check(what: string, ok: boolean): void {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failed++;
}

async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<boolean> {
  const deadline = systemClock.now() + timeoutMs;
  while (systemClock.now() < deadline) {
    if (await condition()) return true;
    await systemClock.sleep(250);
  }
  console.log(`     (gave up waiting: ${what})`);
  return false;
}

const metacontrollerCrds = loadAll(await readFile(crdFile, 'utf8')).filter((doc): doc is object => typeof doc === 'object' && doc !== null);
const plane = await startControlPlane({ crds: [...metacontrollerCrds, parentCrd] });
const hook = Fastify();
hook.post('/sync', (req) => answer((req.body as { parent: KubeObject }).parent));
const url = `${await hook.listen({ host: '127.0.0.1', port: 0 })}/sync`;
const metacontroller = spawn(binary, [`--kubeconfig=${plane.kubeconfigPath}`, '--discovery-interval=1s', '--zap-log-level=4'], { stdio: ['ignore', 'pipe', 'pipe'] });
let log = '';
metacontroller.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
metacontroller.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
try {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: plane.kubeconfigPath }) });
  const writer: ObjectWriter = await writerFromDiscovery(client, 'loom-bench');
  const applied = await writer.create({ ...controller, spec: { ...controller.spec, hooks: { sync: { webhook: { url } } } } });
  check('the API server takes a CompositeController with loom fields under Metacontroller\'s CRD', applied.metadata.uid !== undefined);
  const parent = await writer.create({ apiVersion: `${GROUP}/v1`, kind: 'App', metadata: { name: 'a', namespace: NAMESPACE }, spec: { value: 'one' } });
  const get = (kind: string, name: string) => writer.get({ apiVersion: kind === 'App' ? `${GROUP}/v1` : 'v1', kind, namespace: NAMESPACE, name });
  check('Metacontroller creates both children', await until('children', async () => Boolean(await get('ConfigMap', 'a-config')) && Boolean(await get('Secret', 'a-secret'))));
  const secret = await get('Secret', 'a-secret');
  check('the loom annotations are written as any annotation', secret?.metadata.annotations?.['loom.dev/depends-on'] === 'ConfigMap/a-config');
  check('Metacontroller writes the hook\'s status', await until('status', async () => ((await get('App', 'a'))?.status as { value?: string } | undefined)?.value === 'one'));
  await writer.apply({ ...parent, metadata: { name: 'a', namespace: NAMESPACE }, spec: { value: 'two' } }, { fieldManager: 'loom-bench' });
  check('an edit reaches the children', await until('edit', async () => ((await get('ConfigMap', 'a-config'))?.data as { value?: string } | undefined)?.value === 'two'));
  await writer.delete({ apiVersion: `${GROUP}/v1`, kind: 'App', namespace: NAMESPACE, name: 'a' });
  check('the children go with their parent', await until('garbage collection', async () => !(await get('ConfigMap', 'a-config')) && !(await get('Secret', 'a-secret'))));
  const lines = log.split('\n').filter((line) => line.trim() !== '');
  const errors = lines.filter((line) => /"level":"error"|\bE\d{4} /.test(line));
  check(`Metacontroller logged no error (${errors.length} of ${lines.length} lines)`, lines.length > 0 && errors.length === 0);
  for (const line of errors.slice(0, 5)) console.log(`     ${line.slice(0, 300)}`);
} finally {
  metacontroller.kill('SIGTERM');
  if (process.env.COMPAT_LOG) console.log(log.split('\n').slice(0, 40).join('\n'));
  await hook.close();
  await plane.stop();
}
console.log(failed === 0 ? 'Metacontroller runs loom\'s ordering and policy fields unharmed' : `${failed} checks failed`);
process.exitCode = failed === 0 ? 0 : 1;
