/**
 * What the integration tests of the ready-made controllers (`controllers/<name>/`) share: reading the
 * shipped manifests, applying the shipped controller with the test label that lets one test file's
 * host (and only it) run it, and waiting for what the controller writes.
 */
import { readFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import type { KubeObject } from '../../src/api/index.ts';
import { eventually } from './cluster.ts';
import { startTestLoom, type TestClients, type TestLoom } from './loom.ts';

const SHELF_DIR = new URL('../../controllers/', import.meta.url);

/** The single-document manifest `file` of the shelf folder `controllers/<folder>/`, as shipped. */
export async function shelfManifest(folder: string, file: string): Promise<KubeObject> {
  return load(await readFile(new URL(`${folder}/${file}`, SHELF_DIR), 'utf8')) as KubeObject;
}

/**
 * Applies `controllers/<folder>/controller.yaml` exactly as shipped but for the label
 * `loom-test: <label>`, which a host started with `startTestLoom(label)` selects. Fails if the
 * shipped controller carries labels of its own: the test label would then not be the only change.
 */
export async function applyShippedController(clients: TestClients, folder: string, label: string): Promise<void> {
  const shipped = await shelfManifest(folder, 'controller.yaml');
  if (shipped.metadata.labels !== undefined) {
    throw new Error(`controllers/${folder}/controller.yaml ships with labels ${JSON.stringify(shipped.metadata.labels)}; a shelf controller ships with none`);
  }
  await clients.apply({ ...shipped, metadata: { ...shipped.metadata, labels: { 'loom-test': label } } });
}

/** Starts this test file's host (see `startTestLoom`) and applies the shipped controller for it to run. */
export async function startShelfHost(clients: TestClients, folder: string, label: string): Promise<TestLoom> {
  const loom = await startTestLoom(label);
  await applyShippedController(clients, folder, label);
  return loom;
}

/** The cluster-scoped parents a test file made, to delete when it ends. */
export interface MadeParents {
  apiVersion: string;
  kind: string;
  names: readonly string[];
}

/**
 * Stops the host (if it started), then deletes `parents`: cluster-scoped objects outlive the test
 * file's namespaces. The host stops first, so it does not sync a parent that is going away.
 */
export async function stopAndDeleteParents(loom: TestLoom | undefined, clients: TestClients, parents: MadeParents): Promise<void> {
  await loom?.stop();
  for (const name of parents.names) await clients.writer.delete({ apiVersion: parents.apiVersion, kind: parents.kind, name });
}

/** Polls `read` until it returns an object that satisfies `accept`, and returns that object. */
export function objectWhen(read: () => Promise<KubeObject | undefined>, accept: (obj: KubeObject) => boolean, what: string): Promise<KubeObject> {
  return eventually(async () => {
    const obj = await read();
    return obj && accept(obj) ? obj : undefined;
  }, what);
}

/**
 * Polls `read` (a parent) until it has a status that satisfies `accept`, and returns that status.
 * `S` is the controller's status shape; it is cast, not checked — `accept` and the test's
 * assertions do the checking.
 */
export function statusWhen<S>(read: () => Promise<KubeObject | undefined>, accept: (status: S) => boolean, what: string): Promise<S> {
  return eventually(async () => {
    const status = (await read())?.status as S | undefined;
    return status && accept(status) ? status : undefined;
  }, what);
}

/** Waits until `read` finds nothing. */
export async function eventuallyGone(read: () => Promise<KubeObject | undefined>, what: string): Promise<void> {
  await eventually(async () => ((await read()) ? undefined : true), what);
}

/** A Secret's copy, once it holds `data` with `type` (the replication and propagation tests). */
export function secretHolding(clients: TestClients, at: { namespace: string; name: string }, data: Record<string, string>, type = 'Opaque'): Promise<KubeObject> {
  const holds = (copy: KubeObject) => copy.type === type && JSON.stringify(copy.data) === JSON.stringify(data);
  const read = () => clients.writer.get({ apiVersion: 'v1', kind: 'Secret', namespace: at.namespace, name: at.name });
  return objectWhen(read, holds, `the copy ${at.namespace}/${at.name} to hold ${type} ${JSON.stringify(data)}`);
}

/** The object a controller reported on, as named in its events' `involvedObject`. */
export interface InvolvedObject {
  kind: string;
  name: string;
}

interface EventList {
  items: { reason?: string; message?: string; involvedObject: { kind?: string; name?: string } }[];
}

/**
 * The messages of the `SyncError` events on `involved`, once there is at least one. Searches every
 * namespace: the events of a cluster-scoped object live in `default`.
 */
export function syncErrorMessages(clients: TestClients, involved: InvolvedObject): Promise<string[]> {
  return eventually(async () => {
    const events = await clients.client.request<EventList>({
      method: 'GET', path: '/api/v1/events', query: { fieldSelector: `involvedObject.name=${involved.name}` },
    });
    const messages = events.items
      .filter((e) => e.reason === 'SyncError' && e.involvedObject.kind === involved.kind)
      .map((e) => e.message ?? '');
    return messages.length > 0 ? messages : undefined;
  }, `a SyncError event on ${involved.kind} ${involved.name}`);
}
