/**
 * Writes objects of any type: server-side apply, create, replace, status replace, delete with a UID
 * precondition, and an uncached read. The type of each object (its REST path and scope) comes from
 * discovery, so built-ins and CRDs go through the same code.
 */
import type { KubeObject } from '../api/object.ts';
import { isNotFound } from './kube-api-error.ts';
import { discover } from './discovery.ts';
import type { RestClient } from './rest-client.ts';
import { resourcePath, type ResourceType } from './resource-path.ts';

/** Finds the served type of an `apiVersion` + `kind`; throws when discovery does not know it. */
export type TypeResolver = (apiVersion: string, kind: string) => ResourceType;

/** Identifies one object. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
}

/** How to server-side apply. */
export interface ApplyOptions {
  fieldManager: string;
  /** Validate and compute the result without persisting it. */
  dryRun?: boolean;
}

/** How to create. */
export interface CreateOptions {
  /** Validate (and run admission) without persisting. With the name of an existing object, the answer is 409 AlreadyExists once the object has passed validation. */
  dryRun?: boolean;
}

/** How to delete. */
export interface DeleteOptions {
  /** Delete only if the object still has this UID (never a namesake created since). */
  uid?: string | undefined;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

/** Write (and uncached read) operations on any object. */
export interface ObjectWriter {
  /** `PATCH` with `application/apply-patch+yaml`, `force=true`: loom owns the fields it sets. */
  apply(obj: KubeObject, options: ApplyOptions): Promise<KubeObject>;
  create(obj: KubeObject, options?: CreateOptions): Promise<KubeObject>;
  /** `PUT` with the object's resourceVersion (optimistic concurrency). */
  replace(obj: KubeObject): Promise<KubeObject>;
  /** `PUT` to the status subresource. */
  replaceStatus(obj: KubeObject): Promise<KubeObject>;
  /** `PATCH` with a JSON patch (RFC 6902), for surgical edits such as dropping one annotation. */
  patchJson(ref: ObjectRef, operations: readonly object[]): Promise<KubeObject>;
  /** Resolves `false` when the object was already gone. */
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<boolean>;
  /** An uncached GET; `undefined` when absent. */
  get(ref: ObjectRef): Promise<KubeObject | undefined>;
}

function refOf(obj: KubeObject): ObjectRef {
  return { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
}

/**
 * A writer whose types come from one discovery pass: for one-off tools (`install-crds`, `loom dev`,
 * benchmarks) that write known kinds once. Long-running code resolves against refreshed discovery.
 */
export async function writerFromDiscovery(client: RestClient, signal?: AbortSignal): Promise<ObjectWriter> {
  const snapshot = await discover(client, signal);
  return createObjectWriter(client, (apiVersion, kind) => {
    const type = snapshot.byKind(apiVersion, kind);
    if (!type) throw new Error(`the API server does not serve kind ${kind} in ${apiVersion}`);
    return type;
  });
}

/** Creates a writer over `client`, resolving types with `resolveType`. */
export function createObjectWriter(client: RestClient, resolveType: TypeResolver): ObjectWriter {
  const pathOf = (ref: ObjectRef, named = true, subresource?: string): string =>
    resourcePath(resolveType(ref.apiVersion, ref.kind), { namespace: ref.namespace, ...(named ? { name: ref.name } : {}), subresource });

  return {
    apply: (obj, options) => client.request<KubeObject>({
      method: 'PATCH',
      path: pathOf(refOf(obj)),
      query: { fieldManager: options.fieldManager, force: true, dryRun: options.dryRun ? 'All' : undefined },
      contentType: 'application/apply-patch+yaml',
      body: obj,
    }),
    create: (obj, options = {}) => client.request<KubeObject>({
      method: 'POST', path: pathOf(refOf(obj), false), query: { dryRun: options.dryRun ? 'All' : undefined }, body: obj,
    }),
    replace: (obj) => client.request<KubeObject>({ method: 'PUT', path: pathOf(refOf(obj)), body: obj }),
    replaceStatus: (obj) => client.request<KubeObject>({ method: 'PUT', path: pathOf(refOf(obj), true, 'status'), body: obj }),
    patchJson: (ref, operations) => client.request<KubeObject>({
      method: 'PATCH', path: pathOf(ref), contentType: 'application/json-patch+json', body: operations,
    }),
    async delete(ref, options = {}) {
      const body = {
        apiVersion: 'v1', kind: 'DeleteOptions',
        propagationPolicy: options.propagationPolicy ?? 'Background',
        ...(options.uid ? { preconditions: { uid: options.uid } } : {}),
      };
      try {
        await client.request({ method: 'DELETE', path: pathOf(ref), body });
        return true;
      } catch (err) {
        if (isNotFound(err)) return false; // Already gone: the outcome a delete wants.
        throw err;
      }
    },
    async get(ref) {
      try {
        return await client.request<KubeObject>({ method: 'GET', path: pathOf(ref) });
      } catch (err) {
        if (isNotFound(err)) return undefined; // Absence is an answer, not an error.
        throw err;
      }
    },
  };
}
