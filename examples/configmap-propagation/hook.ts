/**
 * The configmap-propagation example's hooks, a port of Metacontroller's `configmappropagation`: a
 * cluster-scoped ConfigMapPropagation copies one ConfigMap into a list of namespaces.
 *
 * - `customize` names the source ConfigMap as a related object (by namespace and name), so loom
 *   watches it and sends it with every sync, and syncs the propagation again whenever it changes.
 * - `sync` returns one copy per target namespace. Without a source (deleted, not created yet) it
 *   returns none, so loom deletes the copies, as the original does.
 *
 * Run alone with `node examples/configmap-propagation/hook.ts`: it listens on `HOST`:`PORT` (default
 * 0.0.0.0:8080) and logs its URL. `loom render --hook-module` loads the default export.
 */
import {
  childrenOf, createHookServer, desired, observedRelated,
  type CompositeRequest, type CompositeResponse, type CustomizeRequest, type CustomizeResponse, type HookServer, type HookServerOptions, type KubeObject,
} from 'kube-loom-sdk';

/** The parent type, as far as the hooks read it (crd.yaml makes the fields required). */
export interface ConfigMapPropagation extends KubeObject {
  spec: { sourceName: string; sourceNamespace: string; targetNamespaces?: string[] };
}

/** The status the sync hook writes (loom adds `observedGeneration`); field names as the original's. */
export interface PropagationStatus {
  /** Namespaces that should hold a copy. */
  expected_copies: number;
  /** Copies observed in those namespaces. */
  actual_copies: number;
}

/** A sync request of this controller: ConfigMap children, the source as a related ConfigMap. */
export type PropagationRequest = CompositeRequest<ConfigMapPropagation, 'ConfigMap.v1', 'ConfigMap.v1'>;

/** The related objects a propagation needs: its source ConfigMap, picked by namespace and name. */
export function propagationCustomize(request: CustomizeRequest<ConfigMapPropagation>): CustomizeResponse {
  const { sourceName, sourceNamespace } = request.parent.spec;
  return { relatedResources: [{ apiVersion: 'v1', resource: 'configmaps', namespace: sourceNamespace, names: [sourceName] }] };
}

/**
 * The namespaces that get a copy: each listed one once, in order, but never the source's own (a
 * copy there would be the source itself, which loom must not claim).
 */
export function targetNamespaces(parent: ConfigMapPropagation): string[] {
  const { sourceNamespace, targetNamespaces: listed = [] } = parent.spec;
  return [...new Set(listed)].filter((namespace) => namespace !== sourceNamespace);
}

/** A copy of `source` in `namespace`: same name, same `data` and `binaryData`. */
function copyOf(source: KubeObject, namespace: string): KubeObject {
  const content = Object.fromEntries(['data', 'binaryData'].filter((field) => source[field] !== undefined).map((field) => [field, source[field]]));
  return desired({ apiVersion: 'v1', kind: 'ConfigMap', name: source.metadata.name!, namespace, ...content });
}

/** The copies to keep, and the status: expected copies against those observed. */
export function propagationSync(request: PropagationRequest): CompositeResponse & { status: PropagationStatus } {
  const { sourceName, sourceNamespace } = request.parent.spec;
  const targets = targetNamespaces(request.parent);
  // v1 and v2 key related objects of a cluster-scoped parent alike ("namespace/name"); the SDK reads both.
  const source = observedRelated(request, 'ConfigMap.v1', sourceName, sourceNamespace);
  const copies = childrenOf(request, 'ConfigMap.v1').filter((copy) => targets.includes(copy.metadata.namespace ?? ''));
  return {
    status: { expected_copies: targets.length, actual_copies: copies.length },
    children: source ? targets.map((namespace) => copyOf(source, namespace)) : [],
  };
}

/** A hook server answering `POST /sync` and `POST /customize`; `logger` defaults to the SDK's (pino at info). */
export function configMapPropagationHook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({ ...options, composite: { sync: propagationSync, customize: propagationCustomize } });
}

/** For `loom render --hook-module`: a quiet server, called in-process, never listening. */
export default (): HookServer => configMapPropagationHook({ logger: false });

if (import.meta.main) {
  await configMapPropagationHook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
