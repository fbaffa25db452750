/**
 * The crd-roles example's hooks, for a DecoratorController on CustomResourceDefinitions annotated
 * `enable-default-roles: "yes"`: each such CRD gets a ClusterRole `<crd name>-reader` that may get,
 * list and watch the CRD's resource. A cluster-scoped target with a cluster-scoped attachment: the
 * ClusterRole is owned by the CRD, so deleting the CRD garbage-collects it.
 *
 * The finalize hook (called when the CRD is deleted or loses the annotation) asks for no ClusterRole
 * and reports finalized once none is observed: opting out revokes the grant instead of leaving a
 * role behind for a type whose owner no longer asked for it.
 *
 * Run alone with `node examples/crd-roles/hook.ts`: it listens on `HOST`:`PORT` (default
 * 0.0.0.0:8080) and logs its URL. `loom render --hook-module` loads the default export.
 */
import {
  attachmentsOf, createHookServer, desired, type DecoratorRequest, type DecoratorResponse, type HookServer, type HookServerOptions,
  type KubeObject,
} from 'kube-loom-sdk';

/** The annotation that opts a CRD in (the DecoratorController selects the value `yes`). */
export const ENABLE_ANNOTATION = 'enable-default-roles';
/** What the reader role may do with the CRD's resource. */
export const READER_VERBS = ['get', 'list', 'watch'] as const;

/** The target, as far as the hook reads it. */
export interface CustomResourceDefinition extends KubeObject {
  spec: { group: string; names: { plural: string } };
}

/** A sync or finalize request for one CRD (v1 keys: the ClusterRole is keyed by its name). */
export type CrdRolesRequest = DecoratorRequest<CustomResourceDefinition, 'ClusterRole.rbac.authorization.k8s.io/v1'>;

/** The reader ClusterRole of `crd`. */
export function readerRole(crd: CustomResourceDefinition): KubeObject {
  return desired({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: `${crd.metadata.name}-reader`,
    labels: { 'app.kubernetes.io/managed-by': 'crd-roles' },
    rules: [{ apiGroups: [crd.spec.group], resources: [crd.spec.names.plural], verbs: [...READER_VERBS] }],
  });
}

/** Attaches the reader ClusterRole. */
export function crdRolesSync(request: CrdRolesRequest): DecoratorResponse {
  return { attachments: [readerRole(request.object)] };
}

/** Deletes the ClusterRole; done once none is observed any more. */
export function crdRolesFinalize(request: CrdRolesRequest): DecoratorResponse {
  return { attachments: [], finalized: attachmentsOf(request, 'ClusterRole.rbac.authorization.k8s.io/v1').length === 0 };
}

/** A hook server answering `POST /sync` and `POST /finalize`; `logger` defaults to the SDK's own. */
export function crdRolesHook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({ ...options, decorator: { sync: crdRolesSync, finalize: crdRolesFinalize } });
}

/** For `loom render --hook-module`: a quiet server, called in-process, never listening. */
export default (): HookServer => crdRolesHook({ logger: false });

if (import.meta.main) {
  await crdRolesHook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
