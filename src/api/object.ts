/**
 * The shape of a Kubernetes object as loom sees it: plain JSON with the metadata fields loom reads
 * typed, and everything else passed through untouched.
 */

/** `metadata.ownerReferences[]` entry. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The `metadata` fields loom reads; others are kept as they are. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  [field: string]: unknown;
}

/** Any Kubernetes object (or a desired one, which may lack server-set fields). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** A JSON value: what hooks send and receive. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `namespace/name`, or `name` for a cluster-scoped object: the key of a work-queue item. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Whether `obj` is being deleted (`metadata.deletionTimestamp` is set). */
export function isTerminating(obj: KubeObject): boolean {
  return Boolean(obj.metadata.deletionTimestamp);
}

/** The controller reference (`controller: true`) among the owner references, if any. */
export function controllerRefOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

/**
 * The key of a resource type, `apiVersion/resource` (`apps/v1/deployments`): informers, watches and the
 * related-object index are keyed by it.
 */
export function resourceTypeKey(type: { apiVersion: string; resource: string }): string {
  return `${type.apiVersion}/${type.resource}`;
}

/** `group` part of an `apiVersion` (`''` for the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}
