/**
 * The global-configmap example's hooks, a port of Metacontroller's `globalconfigmap`: a cluster-scoped
 * GlobalConfigMap copies one ConfigMap into every namespace of the cluster, including namespaces
 * created later.
 *
 * - `customize` asks for two kinds of related objects: the source ConfigMap (by namespace and name)
 *   and every Namespace (`labelSelector: {}`). loom watches both, so a new namespace syncs the parent.
 * - `sync` returns one copy per namespace, but the source's own and those being deleted (the API
 *   server refuses new objects there). Without a source it returns none, so loom deletes the copies.
 *
 * Run alone with `node examples/global-configmap/hook.ts`: it listens on `HOST`:`PORT` (default
 * 0.0.0.0:8080) and logs its URL. `loom render --hook-module` loads the default export.
 */
import {
  childrenOf, createHookServer, desired, observedRelated, relatedOf,
  type CompositeRequest, type CompositeResponse, type CustomizeRequest, type CustomizeResponse, type HookServer, type HookServerOptions, type KubeObject,
} from 'kube-loom-sdk';

/** The parent type, as far as the hooks read it (crd.yaml makes the fields required). */
export interface GlobalConfigMap extends KubeObject {
  spec: { sourceName: string; sourceNamespace: string };
}

/** The status the sync hook writes (loom adds `observedGeneration`). */
export interface GlobalStatus {
  /** Namespaces that should hold a copy. */
  expected_copies: number;
  /** Copies observed in those namespaces. */
  actual_copies: number;
}

/** A sync request of this controller: ConfigMap children; the source and the namespaces as related objects. */
export type GlobalRequest = CompositeRequest<GlobalConfigMap, 'ConfigMap.v1', 'ConfigMap.v1' | 'Namespace.v1'>;

/** The related objects a GlobalConfigMap needs: its source, and every namespace. */
export function globalCustomize(request: CustomizeRequest<GlobalConfigMap>): CustomizeResponse {
  const { sourceName, sourceNamespace } = request.parent.spec;
  return {
    relatedResources: [
      { apiVersion: 'v1', resource: 'configmaps', namespace: sourceNamespace, names: [sourceName] },
      // An empty selector selects everything; namespaces are cluster-scoped, keyed by their name.
      { apiVersion: 'v1', resource: 'namespaces', labelSelector: {} },
    ],
  };
}

/** A namespace being deleted: the API server refuses to create objects in it. */
function isTerminating(namespace: KubeObject): boolean {
  return namespace.metadata.deletionTimestamp !== undefined || (namespace.status as { phase?: string } | undefined)?.phase === 'Terminating';
}

/** The namespaces that get a copy, by name (ordered): all of them but the source's own and those being deleted. */
export function targetNamespaces(request: GlobalRequest): string[] {
  return relatedOf(request, 'Namespace.v1')
    .filter((namespace) => !isTerminating(namespace))
    .map((namespace) => namespace.metadata.name!)
    .filter((name) => name !== request.parent.spec.sourceNamespace);
}

/** A copy of `source` in `namespace`: same name, same `data` and `binaryData`. */
function copyOf(source: KubeObject, namespace: string): KubeObject {
  const content = Object.fromEntries(['data', 'binaryData'].filter((field) => source[field] !== undefined).map((field) => [field, source[field]]));
  return desired({ apiVersion: 'v1', kind: 'ConfigMap', name: source.metadata.name!, namespace, ...content });
}

/** The copies to keep, and the status: expected copies against those observed. */
export function globalSync(request: GlobalRequest): CompositeResponse & { status: GlobalStatus } {
  const { sourceName, sourceNamespace } = request.parent.spec;
  const targets = targetNamespaces(request);
  const source = observedRelated(request, 'ConfigMap.v1', sourceName, sourceNamespace);
  const copies = childrenOf(request, 'ConfigMap.v1').filter((copy) => targets.includes(copy.metadata.namespace ?? ''));
  return {
    status: { expected_copies: targets.length, actual_copies: copies.length },
    children: source ? targets.map((namespace) => copyOf(source, namespace)) : [],
  };
}

/** A hook server answering `POST /sync` and `POST /customize`; `logger` defaults to the SDK's (pino at info). */
export function globalConfigMapHook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({ ...options, composite: { sync: globalSync, customize: globalCustomize } });
}

/** For `loom render --hook-module`: a quiet server, called in-process, never listening. */
export default (): HookServer => globalConfigMapHook({ logger: false });

if (import.meta.main) {
  await globalConfigMapHook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
