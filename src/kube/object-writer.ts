/**
 * Writes objects of any type: server-side apply, create, replace, status replace, delete with a UID
 * precondition, and an uncached read. The type of each object (its REST path and scope) comes from
 * discovery, so built-ins and CRDs go through the same code.
 */
import { groupOf, type KubeObject } from '../api/object.ts';
import { isConflict, isNotFound, KubeApiError } from './kube-api-error.ts';
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

/** What every call may carry. */
export interface CallOptions {
  /**
   * Gives the call up when it aborts: while it waits for the client rate limit (leaving the line,
   * taking no slot) or in flight. A write given up in flight may still have been made.
   */
  signal?: AbortSignal | undefined;
}

/** How to server-side apply. */
export interface ApplyOptions extends CallOptions {
  fieldManager: string;
  /** Validate and compute the result without persisting it. */
  dryRun?: boolean;
  /**
   * Only create: an object of that name that already exists is left untouched and the apply is refused
   * with 409 AlreadyExists, as a `POST` would be. The fields are still owned by an `Apply` entry of the
   * field manager, so later applies prune what they no longer set (a `POST` records an `Update` entry,
   * whose fields no apply of the same manager ever removes).
   */
  createOnly?: boolean;
}

/** How to create. */
export interface CreateOptions extends CallOptions {
  /** Validate (and run admission) without persisting. With the name of an existing object, the answer is 409 AlreadyExists once the object has passed validation. */
  dryRun?: boolean;
}

/** How to delete. */
export interface DeleteOptions extends CallOptions {
  /** Delete only if the object still has this UID (never a namesake created since). */
  uid?: string | undefined;
  /** Delete only if the object is still at this version (unchanged since it was read and judged). */
  resourceVersion?: string | undefined;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

/** Write (and uncached read) operations on any object. */
export interface ObjectWriter {
  /** `PATCH` with `application/apply-patch+yaml`, `force=true`: loom owns the fields it sets. See {@link ApplyOptions.createOnly}. */
  apply(obj: KubeObject, options: ApplyOptions): Promise<KubeObject>;
  create(obj: KubeObject, options?: CreateOptions): Promise<KubeObject>;
  /** `PUT` with the object's resourceVersion (optimistic concurrency). */
  replace(obj: KubeObject, options?: CallOptions): Promise<KubeObject>;
  /** `PUT` to the status subresource. */
  replaceStatus(obj: KubeObject, options?: CallOptions): Promise<KubeObject>;
  /** `PATCH` with a JSON patch (RFC 6902), for surgical edits such as dropping one annotation. */
  patchJson(ref: ObjectRef, operations: readonly object[], options?: CallOptions): Promise<KubeObject>;
  /** Resolves `false` when the object was already gone. */
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<boolean>;
  /** An uncached GET; `undefined` when absent. */
  get(ref: ObjectRef, options?: CallOptions): Promise<KubeObject | undefined>;
}

function refOf(obj: KubeObject): ObjectRef {
  return { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
}

/**
 * The precondition of a create-only apply. An apply whose body carries `metadata.resourceVersion` is
 * refused with 409 Conflict unless the object exists with exactly that version; when no object exists
 * the version is ignored and the object is created (checked against kube-apiserver 1.34: created when
 * absent, refused and left as it was when present, in dry runs too; `0` would mean "no precondition"
 * and a non-number is a 500). No object kept in etcd ever has version 1, etcd's first write being
 * revision 2, so such an apply can only create.
 */
const NEVER_STORED_VERSION = '1';

function withNeverStoredVersion(obj: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: NEVER_STORED_VERSION } };
}

/**
 * A create-only apply's 409 Conflict as the 409 AlreadyExists a `POST` gets, worded as the API server
 * words that one, so callers and users see the same answer in both apply strategies. The Conflict is
 * not kept as the cause: its text ("the object has been modified") misstates what happened.
 */
function asAlreadyExists(err: unknown, type: ResourceType, name: string): unknown {
  if (!isConflict(err)) return err;
  const group = groupOf(type.apiVersion);
  const resource = group ? `${type.resource}.${group}` : type.resource;
  return new KubeApiError(`409 AlreadyExists: ${resource} "${name}" already exists`, { status: 409, reason: 'AlreadyExists' });
}

/**
 * A writer whose types come from one discovery pass: for one-off tools (`install-crds`, `loom dev`,
 * benchmarks) that write known kinds once, as `fieldManager` (see {@link createObjectWriter}).
 * Long-running code resolves against refreshed discovery.
 */
export async function writerFromDiscovery(client: RestClient, fieldManager: string, signal?: AbortSignal): Promise<ObjectWriter> {
  const snapshot = await discover(client, signal);
  return createObjectWriter(client, (apiVersion, kind) => {
    const type = snapshot.byKind(apiVersion, kind);
    if (!type) throw new Error(`the API server does not serve kind ${kind} in ${apiVersion}`);
    return type;
  }, fieldManager);
}

/**
 * Creates a writer over `client`, resolving types with `resolveType`. Creates, replaces, status
 * writes and JSON patches name `fieldManager` (applies name their own), so `managedFields` say who
 * wrote which fields. It is required: a write naming no manager is recorded under the first word of
 * the User-Agent, `loom`, the default manager of `loom run`, which would take such fields over as its own.
 */
export function createObjectWriter(client: RestClient, resolveType: TypeResolver, fieldManager: string): ObjectWriter {
  const pathOf = (ref: ObjectRef, named = true, subresource?: string): string =>
    resourcePath(resolveType(ref.apiVersion, ref.kind), { namespace: ref.namespace, ...(named ? { name: ref.name } : {}), subresource });

  return {
    async apply(obj, options) {
      try {
        return await client.request<KubeObject>({
          method: 'PATCH',
          path: pathOf(refOf(obj)),
          query: { fieldManager: options.fieldManager, force: true, dryRun: options.dryRun ? 'All' : undefined },
          contentType: 'application/apply-patch+yaml',
          body: options.createOnly ? withNeverStoredVersion(obj) : obj,
          signal: options.signal,
        });
      } catch (err) {
        throw options.createOnly ? asAlreadyExists(err, resolveType(obj.apiVersion, obj.kind), obj.metadata.name ?? '') : err;
      }
    },
    create: (obj, options = {}) => client.request<KubeObject>({
      method: 'POST', path: pathOf(refOf(obj), false), query: { fieldManager, dryRun: options.dryRun ? 'All' : undefined }, body: obj, signal: options.signal,
    }),
    replace: (obj, options = {}) => client.request<KubeObject>({ method: 'PUT', path: pathOf(refOf(obj)), query: { fieldManager }, body: obj, signal: options.signal }),
    replaceStatus: (obj, options = {}) => client.request<KubeObject>({
      method: 'PUT', path: pathOf(refOf(obj), true, 'status'), query: { fieldManager }, body: obj, signal: options.signal,
    }),
    patchJson: (ref, operations, options = {}) => client.request<KubeObject>({
      method: 'PATCH', path: pathOf(ref), query: { fieldManager }, contentType: 'application/json-patch+json', body: operations, signal: options.signal,
    }),
    async delete(ref, options = {}) {
      const { uid, resourceVersion } = options;
      const body = {
        apiVersion: 'v1', kind: 'DeleteOptions',
        propagationPolicy: options.propagationPolicy ?? 'Background',
        ...(uid || resourceVersion ? { preconditions: { uid, resourceVersion } } : {}),
      };
      try {
        await client.request({ method: 'DELETE', path: pathOf(ref), body, signal: options.signal });
        return true;
      } catch (err) {
        if (isNotFound(err)) return false; // Already gone: the outcome a delete wants.
        throw err;
      }
    },
    async get(ref, options = {}) {
      try {
        return await client.request<KubeObject>({ method: 'GET', path: pathOf(ref), signal: options.signal });
      } catch (err) {
        if (isNotFound(err)) return undefined; // Absence is an answer, not an error.
        throw err;
      }
    },
  };
}
