/**
 * What the API server serves: every resource's kind, scope and subresources, read with aggregated
 * discovery (two requests for the whole cluster instead of one per group version) and refreshed
 * periodically (`--discovery-interval`) so CRDs created after start become usable.
 */
import type { RestClient } from './rest-client.ts';
import type { ResourceType } from './resource-path.ts';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

interface DiscoveredResource {
  resource: string;
  responseKind?: { kind?: string };
  scope?: 'Namespaced' | 'Cluster';
  subresources?: { subresource: string }[];
}

interface GroupDiscoveryList {
  items?: { metadata?: { name?: string }; versions?: { version: string; resources?: DiscoveredResource[] }[] }[];
}

/** An immutable view of one discovery pass. */
export interface DiscoverySnapshot {
  /** The type serving `resource` in `apiVersion`, if any. */
  byResource(apiVersion: string, resource: string): ResourceType | undefined;
  /** The type whose kind is `kind` in `apiVersion`, if any (for objects a hook returns). */
  byKind(apiVersion: string, kind: string): ResourceType | undefined;
  /** The resources served in `apiVersion` (none when it is not served), for did-you-mean hints. */
  resourcesIn(apiVersion: string): string[];
  /** Every served group version. */
  apiVersions(): string[];
  readonly size: number;
}

function toTypes(list: GroupDiscoveryList): ResourceType[] {
  return (list.items ?? []).flatMap((group) => {
    const name = group.metadata?.name ?? '';
    return (group.versions ?? []).flatMap((version) =>
      (version.resources ?? []).filter((r) => r.responseKind?.kind).map((r) => ({
        apiVersion: name ? `${name}/${version.version}` : version.version,
        resource: r.resource,
        kind: r.responseKind!.kind!,
        namespaced: r.scope === 'Namespaced',
        subresources: (r.subresources ?? []).map((s) => s.subresource),
      })));
  });
}

/** Builds a snapshot from a list of types (exported for tests and for `loom render`). */
export function snapshotOf(types: readonly ResourceType[]): DiscoverySnapshot {
  const byResource = new Map(types.map((t) => [`${t.apiVersion}|${t.resource}`, t]));
  const byKind = new Map(types.map((t) => [`${t.apiVersion}|${t.kind}`, t]));
  return {
    byResource: (apiVersion, resource) => byResource.get(`${apiVersion}|${resource}`),
    byKind: (apiVersion, kind) => byKind.get(`${apiVersion}|${kind}`),
    resourcesIn: (apiVersion) => types.filter((t) => t.apiVersion === apiVersion).map((t) => t.resource),
    apiVersions: () => [...new Set(types.map((t) => t.apiVersion))],
    size: types.length,
  };
}

/** Reads the whole API surface: `/api` (core) and `/apis` (every group), aggregated form. */
export async function discover(client: RestClient, signal?: AbortSignal): Promise<DiscoverySnapshot> {
  const lists = await Promise.all(['/api', '/apis'].map((path) =>
    client.request<GroupDiscoveryList>({ method: 'GET', path, signal, accept: AGGREGATED })));
  return snapshotOf(lists.flatMap(toTypes));
}
