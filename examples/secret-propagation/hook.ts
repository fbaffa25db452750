/**
 * The secret-propagation example's hooks, a port of Metacontroller's `secretpropagation`: a
 * cluster-scoped SecretPropagation copies one Secret into every namespace whose labels match a
 * selector, and a namespace that comes to match (or stops matching) gains (or loses) its copy.
 *
 * - `customize` asks for the source Secret (by namespace and name) and for the Namespaces matching
 *   `targetNamespaceLabelSelector`. loom watches both, and syncs the parent when a namespace's labels
 *   change whether it starts or stops matching.
 * - `sync` returns one copy (`type` and `data`) per selected namespace, but the source's own and those
 *   being deleted. Without a source it returns none, so loom deletes the copies.
 *
 * Run alone with `node examples/secret-propagation/hook.ts`: it listens on `HOST`:`PORT` (default
 * 0.0.0.0:8080) and logs its URL. `loom render --hook-module` loads the default export.
 */
import {
  childrenOf, createHookServer, desired, observedChild, observedRelated, relatedOf,
  type CompositeRequest, type CompositeResponse, type CustomizeRequest, type CustomizeResponse, type HookServer, type HookServerOptions,
  type KubeObject, type LabelSelector,
} from 'kube-loom-sdk';

/** The parent type, as far as the hooks read it (crd.yaml makes the fields required). */
export interface SecretPropagation extends KubeObject {
  spec: { sourceName: string; sourceNamespace: string; targetNamespaceLabelSelector: LabelSelector };
}

/** The status the sync hook writes (loom adds `observedGeneration`). Never a secret value. */
export interface SecretPropagationStatus {
  /** Selected namespaces that should hold a copy. */
  expected_copies: number;
  /** Copies observed in those namespaces. */
  actual_copies: number;
}

/** A sync request of this controller: Secret children; the source and the selected namespaces as related objects. */
export type SecretPropagationRequest = CompositeRequest<SecretPropagation, 'Secret.v1', 'Secret.v1' | 'Namespace.v1'>;

/** The related objects a propagation needs: its source, and the namespaces its selector matches. */
export function secretCustomize(request: CustomizeRequest<SecretPropagation>): CustomizeResponse {
  const { sourceName, sourceNamespace, targetNamespaceLabelSelector } = request.parent.spec;
  return {
    relatedResources: [
      { apiVersion: 'v1', resource: 'secrets', namespace: sourceNamespace, names: [sourceName] },
      { apiVersion: 'v1', resource: 'namespaces', labelSelector: targetNamespaceLabelSelector },
    ],
  };
}

/** A namespace being deleted: the API server refuses to create objects in it. */
function isTerminating(namespace: KubeObject): boolean {
  return namespace.metadata.deletionTimestamp !== undefined || (namespace.status as { phase?: string } | undefined)?.phase === 'Terminating';
}

/** The namespaces that get a copy, by name (ordered): those selected but the source's own and those being deleted. */
export function targetNamespaces(request: SecretPropagationRequest): string[] {
  return relatedOf(request, 'Namespace.v1')
    .filter((namespace) => !isTerminating(namespace))
    .map((namespace) => namespace.metadata.name!)
    .filter((name) => name !== request.parent.spec.sourceNamespace);
}

/** A copy of `source` in `namespace`: same name, `type` and `data`. */
function copyOf(source: KubeObject, namespace: string): KubeObject {
  return desired({ apiVersion: 'v1', kind: 'Secret', name: source.metadata.name!, namespace, type: source.type, data: source.data ?? {} });
}

/**
 * A Secret's `type` cannot be changed: a copy of another type than the source's (the source was made
 * again with a new one) is left out of one sync, so loom deletes it, and the next sync (woken by that
 * deletion) makes it again with the source's type.
 */
function isRetyped(request: SecretPropagationRequest, source: KubeObject, namespace: string): boolean {
  const current = observedChild(request, 'Secret.v1', source.metadata.name!, namespace);
  return current !== undefined && current.type !== source.type;
}

/** The copies to keep, and the status: expected copies against those observed. */
export function secretSync(request: SecretPropagationRequest): CompositeResponse & { status: SecretPropagationStatus } {
  const { sourceName, sourceNamespace } = request.parent.spec;
  const targets = targetNamespaces(request);
  const source = observedRelated(request, 'Secret.v1', sourceName, sourceNamespace);
  const copies = childrenOf(request, 'Secret.v1').filter((copy) => targets.includes(copy.metadata.namespace ?? ''));
  const children = source ? targets.filter((ns) => !isRetyped(request, source, ns)).map((ns) => copyOf(source, ns)) : [];
  return { status: { expected_copies: targets.length, actual_copies: copies.length }, children };
}

/** A hook server answering `POST /sync` and `POST /customize`; `logger` defaults to the SDK's (pino at info). */
export function secretPropagationHook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({ ...options, composite: { sync: secretSync, customize: secretCustomize } });
}

/** For `loom render --hook-module`: a quiet server, called in-process, never listening. */
export default (): HookServer => secretPropagationHook({ logger: false });

if (import.meta.main) {
  await secretPropagationHook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
