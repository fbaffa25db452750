/**
 * Writes children and attachments through the real API server exactly as Metacontroller v4.17.2 leaves
 * them, so a test can start loom on them, or hand them back to Metacontroller. What it writes, by its
 * `--apply-strategy`:
 *
 * - dynamic apply, create: the last-applied annotation records the object as passed to its
 *   ManageChildren (the hook's answer with the namespace defaulted, plus the `controller-uid` label
 *   of generateSelector or the decorator's annotation), then the controller reference is appended and
 *   the object POSTed;
 * - dynamic apply, update: the 3-way merge of that object into the observed one, based on the
 *   annotation, which then records the object; when anything changed, a PUT (InPlace) or a delete
 *   and a create (Recreate);
 * - server-side apply: the object with the controller reference, applied with `force`; a child still
 *   carrying the annotation is first PUT without it.
 *
 * Its creates and updates name no field manager, so the API server records them under the first word
 * of its client's user agent, the binary's name `metacontroller`; its server-side apply names its
 * `--apply-strategy-ssa-field-manager`, by default the same name. Here every write names that manager.
 */
import { LAST_APPLIED_ANNOTATION, type KubeObject } from '../../src/api/index.ts';
import { controllerRefFor, lastAppliedOf, threeWayMerge, type JsonObject } from '../../src/core/index.ts';
import type { RestClient } from '../../src/kube/index.ts';

/** The field manager Metacontroller's writes are recorded under. */
export const METACONTROLLER = 'metacontroller';

/** How Metacontroller last wrote a child: one of its apply strategies, or server-side apply after dynamic apply. */
export type MetacontrollerMode = 'dynamic-apply' | 'server-side-apply' | 'dynamic-then-server-side-apply';

/** JSON as Go's `encoding/json` writes a map: keys sorted (the tests' values hold no `<`, `>` or `&`). */
export function goJson(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
  };
  return JSON.stringify(sorted(value));
}

/** `obj` with `annotations` set as given (absent when empty). */
function withAnnotations(obj: KubeObject, annotations: Record<string, string>): KubeObject {
  const { annotations: _old, ...metadata } = obj.metadata;
  return { ...obj, metadata: { ...metadata, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) } };
}

/** `desired` carrying Metacontroller's record of itself. */
function recorded(observed: KubeObject, desired: KubeObject): KubeObject {
  return withAnnotations(observed, { ...observed.metadata.annotations, [LAST_APPLIED_ANNOTATION]: goJson(desired) });
}

/** `obj` without the last-applied annotation. */
function withoutRecord(obj: KubeObject): KubeObject {
  const { [LAST_APPLIED_ANNOTATION]: _record, ...annotations } = obj.metadata.annotations ?? {};
  return withAnnotations(obj, annotations);
}

const collection = (obj: KubeObject): string => `/api/v1/namespaces/${obj.metadata.namespace}/${obj.kind.toLowerCase()}s`;
const itemPath = (obj: KubeObject): string => `${collection(obj)}/${obj.metadata.name}`;
const owned = (parent: KubeObject, obj: KubeObject): KubeObject =>
  ({ ...obj, metadata: { ...obj.metadata, ownerReferences: [...(obj.metadata.ownerReferences ?? []), controllerRefFor(parent)] } });

/** Metacontroller's dynamic-apply create of `desired` (a core `v1` kind) for `parent`. */
function createAsMetacontroller(client: RestClient, parent: KubeObject, desired: KubeObject): Promise<KubeObject> {
  return client.request<KubeObject>({ method: 'POST', path: collection(desired), query: { fieldManager: METACONTROLLER }, body: owned(parent, recorded(desired, desired)) });
}

/** Metacontroller's server-side apply of `desired` for `parent`, dropping the annotation first from `observed` if it has it. */
async function applyAsMetacontroller(client: RestClient, parent: KubeObject, desired: KubeObject, observed?: KubeObject): Promise<KubeObject> {
  if (observed?.metadata.annotations?.[LAST_APPLIED_ANNOTATION] !== undefined) {
    await client.request({ method: 'PUT', path: itemPath(observed), query: { fieldManager: METACONTROLLER }, body: withoutRecord(observed) });
  }
  return client.request<KubeObject>({
    method: 'PATCH', path: itemPath(desired), query: { fieldManager: METACONTROLLER, force: true },
    contentType: 'application/apply-patch+yaml', body: owned(parent, desired),
  });
}

/**
 * Writes `desired` for `parent` as Metacontroller in `mode` leaves it: the child it would have now,
 * with real `managedFields`.
 */
export async function writeAsMetacontroller(client: RestClient, parent: KubeObject, desired: KubeObject, mode: MetacontrollerMode): Promise<KubeObject> {
  if (mode === 'server-side-apply') return applyAsMetacontroller(client, parent, desired);
  const created = await createAsMetacontroller(client, parent, desired);
  return mode === 'dynamic-apply' ? created : applyAsMetacontroller(client, parent, desired, created);
}

/** One child's sync by Metacontroller's dynamic apply. */
export interface MetacontrollerSync {
  parent: KubeObject;
  observed: KubeObject;
  /** As Metacontroller passes it on to write: never with the controller reference. */
  desired: KubeObject;
  /** The child type's update method. */
  method: 'InPlace' | 'Recreate';
}

/**
 * One sync of Metacontroller's dynamic apply over an existing child of `parent`: its 3-way merge of
 * `desired` (which never holds the controller reference) into `observed`, based on observed's
 * annotation, which then records `desired`. When that changes anything, `InPlace` PUTs the result and
 * `Recreate` deletes the child (UID precondition) and creates it again, as its next sync would.
 * Returns the child as it is afterwards.
 */
export async function syncAsMetacontroller(client: RestClient, sync: MetacontrollerSync): Promise<KubeObject> {
  const { parent, observed, desired, method } = sync;
  const merged = threeWayMerge(observed as unknown as JsonObject, lastAppliedOf(observed), desired as unknown as JsonObject) as unknown as KubeObject;
  const next = recorded(merged, desired);
  if (goJson(next) === goJson(observed)) return observed;
  if (method === 'InPlace') return client.request<KubeObject>({ method: 'PUT', path: itemPath(observed), query: { fieldManager: METACONTROLLER }, body: next });
  const body = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', preconditions: { uid: observed.metadata.uid } };
  await client.request({ method: 'DELETE', path: itemPath(observed), body });
  return createAsMetacontroller(client, parent, desired);
}
