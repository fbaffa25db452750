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
import { childrenOf, createHookServer, desired, observedRelated, type CustomizeResponse, type HookServer, type HookServerOptions } from 'kube-loom-sdk';
// Generated from crd.yaml and controller.yaml by `loom types` (its first line is the command); src/cli/types.test.ts
// checks that it is up to date.
import type {
  ConfigMap, ConfigMapPropagation, ConfigmapPropagationExampleCustomizeRequest as CustomizeRequest,
  ConfigmapPropagationExampleRequest as PropagationRequest, ConfigmapPropagationExampleResponse as PropagationResponse,
} from './types.ts';

/** The related objects a propagation needs: its source ConfigMap, picked by namespace and name. */
export function propagationCustomize(request: CustomizeRequest): CustomizeResponse {
  const { sourceName, sourceNamespace } = request.parent.spec;
  return { relatedResources: [{ apiVersion: 'v1', resource: 'configmaps', namespace: sourceNamespace, names: [sourceName] }] };
}

/**
 * The namespaces that get a copy: each listed one once, in order, but never the source's own (a
 * copy there would be the source itself, which loom must not claim).
 */
export function targetNamespaces(parent: ConfigMapPropagation): string[] {
  // crd.yaml requires the list, but a parent made by hand (a test, `loom render`) may leave it out.
  const { sourceNamespace, targetNamespaces: listed = [] } = parent.spec;
  return [...new Set(listed)].filter((namespace) => namespace !== sourceNamespace);
}

/** A copy of `source` in `namespace`: same name, same `data` and `binaryData` (left out when the source has none). */
function copyOf(source: ConfigMap, namespace: string): ConfigMap {
  const { data, binaryData } = source;
  return desired<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', name: source.metadata.name!, namespace, ...(data && { data }), ...(binaryData && { binaryData }) });
}

/** The copies to keep, and the status: expected copies against those observed. */
export function propagationSync(request: PropagationRequest): PropagationResponse {
  const { sourceName, sourceNamespace } = request.parent.spec;
  const targets = targetNamespaces(request.parent);
  // v1 and v2 key related objects of a cluster-scoped parent alike ("namespace/name"); the SDK reads both.
  // The objects under `ConfigMap.v1` are ConfigMaps: the SDK checks only that they are objects.
  const source = observedRelated(request, 'ConfigMap.v1', sourceName, sourceNamespace) as ConfigMap | undefined;
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
