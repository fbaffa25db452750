/**
 * The namespace-list-v2 example's hooks, a port of Metacontroller's `namespace-list-v2`: a namespaced
 * NamespaceInventory reports, in its status, the names of the cluster's namespaces (all of them, or
 * those its label selector matches). The original's kind, `NamespaceList`, is renamed: kubectl reads
 * `namespacelist` as the list type of core Namespaces.
 *
 * The point is hook version `v2`: a namespaced parent may then read cluster-scoped related objects
 * (here Namespaces, keyed by their name). Under `v1` a namespaced parent only sees objects of its own
 * namespace, so `related["Namespace.v1"]` would always be empty.
 *
 * - `customize` asks for the Namespaces matching `spec.labelSelector` (every namespace without one).
 * - `sync` writes `status: {namespaces: [sorted names], count}` and returns no children.
 *
 * Run alone with `node examples/namespace-list-v2/hook.ts`: it listens on `HOST`:`PORT` (default
 * 0.0.0.0:8080) and logs its URL. `loom render --hook-module` loads the default export.
 */
import {
  createHookServer, relatedOf,
  type CompositeRequest, type CompositeResponse, type CustomizeRequest, type CustomizeResponse, type HookServer, type HookServerOptions,
  type KubeObject, type LabelSelector,
} from 'kube-loom-sdk';

/** The parent type, as far as the hooks read it. */
export interface NamespaceInventory extends KubeObject {
  spec?: { labelSelector?: LabelSelector };
}

/** The status the sync hook writes (loom adds `observedGeneration`). */
export interface NamespaceInventoryStatus {
  /** The selected namespaces' names, sorted. */
  namespaces: string[];
  count: number;
}

/** A sync request of this controller: the selected namespaces as related objects. */
export type NamespaceInventoryRequest = CompositeRequest<NamespaceInventory, string, 'Namespace.v1'>;

/** The related objects a NamespaceInventory needs: the namespaces its selector matches (`{}`: all of them). */
export function namespaceInventoryCustomize(request: CustomizeRequest<NamespaceInventory>): CustomizeResponse {
  return { relatedResources: [{ apiVersion: 'v1', resource: 'namespaces', labelSelector: request.parent.spec?.labelSelector ?? {} }] };
}

/** The status listing the selected namespaces; no children (the ConfigMaps the controller declares are none). */
export function namespaceInventorySync(request: NamespaceInventoryRequest): CompositeResponse & { status: NamespaceInventoryStatus } {
  // relatedOf orders by key, and v2 keys a cluster-scoped object by its name: the names come sorted.
  const namespaces = relatedOf(request, 'Namespace.v1').map((namespace) => namespace.metadata.name!);
  return { status: { namespaces, count: namespaces.length }, children: [] };
}

/** A hook server answering `POST /sync` and `POST /customize`; `logger` defaults to the SDK's (pino at info). */
export function namespaceInventoryHook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({ ...options, composite: { sync: namespaceInventorySync, customize: namespaceInventoryCustomize } });
}

/** For `loom render --hook-module`: a quiet server, called in-process, never listening. */
export default (): HookServer => namespaceInventoryHook({ logger: false });

if (import.meta.main) {
  await namespaceInventoryHook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
