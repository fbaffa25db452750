/**
 * REST paths of the Kubernetes API for any resource, built from what discovery knows about it.
 */

/** A resource type as the API serves it. */
export interface ResourceType {
  /** `v1` or `group/version`. */
  apiVersion: string;
  /** Lower-case plural, e.g. `deployments`. */
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Subresources such as `status`. */
  subresources: readonly string[];
}

/** Where in the API a request goes. */
export interface PathTarget {
  namespace?: string | undefined;
  name?: string | undefined;
  subresource?: string | undefined;
}

/** `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/**
 * The path of a collection or an object. A namespaced type without a namespace addresses the
 * collection across all namespaces (list and watch only).
 */
export function resourcePath(type: ResourceType, target: PathTarget = {}): string {
  let path = groupVersionPath(type.apiVersion);
  if (type.namespaced && target.namespace) path += `/namespaces/${encodeURIComponent(target.namespace)}`;
  path += `/${type.resource}`;
  if (target.name !== undefined) path += `/${encodeURIComponent(target.name)}`;
  if (target.subresource !== undefined) path += `/${target.subresource}`;
  return path;
}
