/**
 * The hook wire protocol (docs/hook-protocol.md) as a hook author sees it: the requests loom (or
 * Metacontroller) sends and the responses a handler may return. Requests are what the SDK has checked
 * and filled in (absent object maps as `{}`); responses may leave out any field, which then takes its
 * zero value on the controller's side.
 */
import type { KubeObject, RelatedResourceRule } from '../api/index.ts';
import type { HookCall } from './hook-call.ts';

export type { KubeObject, LabelSelector, ObjectMeta, OwnerReference, RelatedResourceRule } from '../api/index.ts';

/**
 * Observed objects by type, then by key: `children`, `attachments` and `related` of a request.
 *
 * The outer key is `<Kind>.<apiVersion>` (`ConfigMap.v1`, `Deployment.apps/v1`); every declared
 * child or attachment type is present, possibly as `{}`. The inner key depends on the controller's
 * hook version (`spec.hooks.<hook>.version`):
 * - `v1`, namespaced parent: `name`; only objects in the parent's namespace are sent;
 * - `v1`, cluster-scoped parent: `namespace/name`, or `name` for a cluster-scoped object;
 * - `v2`, any parent: `namespace/name`, or `name` for a cluster-scoped object.
 *
 * {@link observedChild} and {@link childrenOf} read both shapes, so a handler written with them works
 * for either version. `Types` names the keys a handler relies on, so that
 * `request.children['ConfigMap.v1']` is typed `Record<string, KubeObject>` rather than possibly
 * `undefined`: `CompositeRequest<MyParent, 'ConfigMap.v1'>`.
 */
export type ObservedObjects<Types extends string = string> = Record<Types, Record<string, KubeObject>>;

/** kstatus's verdicts (docs/ordering-and-readiness.md, "Readiness"); only `Current` is ready. */
export type ReadinessStatus = 'Current' | 'InProgress' | 'Failed' | 'Terminating' | 'NotFound' | 'Unknown';

/** The readiness loom judged one observed object to have: its `readyWhen`, else kstatus's rules. */
export interface ObjectReadiness {
  status: ReadinessStatus;
  /** Why, in words: `readyWhen is false`, `Deployment generation is 2, but latest observed generation is 1`. */
  message: string;
}

/**
 * `readiness` of a request: the readiness of each observed child (attachment), keyed exactly as
 * `children` (`attachments`) is, so `request.readiness?.['ConfigMap.v1']?.['web']` belongs to
 * `request.children['ConfigMap.v1']['web']`. loom's addition: Metacontroller does not send it.
 */
export type ReadinessMap<Types extends string = string> = Partial<Record<Types, Record<string, ObjectReadiness>>>;

/**
 * CompositeController `sync` and `finalize` request. `finalizing` is true only when the finalize
 * hook is called (one handler may serve both). `related` is `{}` without a customize hook.
 *
 * `Parent`, `Children` and `Related` narrow the types for the handler's own convenience: the SDK
 * checks the envelope (a parent with `apiVersion`, `kind` and `metadata.name`; object maps of
 * objects), not the parent's `spec`.
 */
export interface CompositeRequest<Parent extends KubeObject = KubeObject, Children extends string = string, Related extends string = string> {
  /** The whole CompositeController. Always sent; optional so test fixtures may leave it out. */
  controller?: KubeObject;
  parent: Parent;
  children: ObservedObjects<Children>;
  related: ObservedObjects<Related>;
  finalizing: boolean;
  /** The readiness of each child in `children` (loom only; absent when Metacontroller calls). See {@link observedReadiness}. */
  readiness?: ReadinessMap<Children>;
}

/** DecoratorController `sync` and `finalize` request: `object` (not `parent`) and `attachments`. */
export interface DecoratorRequest<Target extends KubeObject = KubeObject, Attachments extends string = string, Related extends string = string> {
  /** The whole DecoratorController. Always sent; optional so test fixtures may leave it out. */
  controller?: KubeObject;
  object: Target;
  attachments: ObservedObjects<Attachments>;
  related: ObservedObjects<Related>;
  finalizing: boolean;
  /** The readiness of each attachment in `attachments` (loom only). */
  readiness?: ReadinessMap<Attachments>;
}

/** `customize` request, for both controller kinds (the field is `parent` for a decorator's target too). */
export interface CustomizeRequest<Parent extends KubeObject = KubeObject> {
  /** The whole CompositeController or DecoratorController. Always sent; optional in fixtures. */
  controller?: KubeObject;
  parent: Parent;
}

/** CompositeController `sync` and `finalize` response; every field may be left out. */
export interface CompositeResponse {
  /** Replaces the parent's `.status` entirely (loom adds `observedGeneration`). */
  status?: Record<string, unknown> | null;
  /**
   * The desired children. Each needs `apiVersion`, `kind` and `metadata.name`; an absent
   * `metadata.namespace` means the parent's. A child left out is deleted. See {@link desired}.
   */
  children?: readonly KubeObject[];
  /** Call sync again after this many seconds (once); `0` or absent: no delayed resync. */
  resyncAfterSeconds?: number;
  /** From the finalize hook: true when cleanup is done and the finalizer may be removed. */
  finalized?: boolean;
}

/** DecoratorController `sync` and `finalize` response; every field may be left out. */
export interface DecoratorResponse {
  /** Merged into the target's labels: a string sets the key, `null` deletes it, others stay. */
  labels?: Record<string, string | null>;
  /** Merged into the target's annotations like `labels`. */
  annotations?: Record<string, string | null>;
  /** An object replaces the target's `.status`; `null` or absent leaves it alone. */
  status?: Record<string, unknown> | null;
  /** The desired attachments, like a composite's `children`. */
  attachments?: readonly KubeObject[];
  resyncAfterSeconds?: number;
  finalized?: boolean;
}

/** `customize` response: which related objects to send with every sync of this parent. */
export interface CustomizeResponse {
  relatedResources?: readonly RelatedResourceRule[];
}

/** What a handler returns: the response, or a promise of it. */
export type HookResult<Response> = Response | Promise<Response>;

/**
 * A hook handler. Declared through a method so that, as for any method, a handler may annotate a
 * narrower request (`(request: CompositeRequest<HelloWorld, 'ConfigMap.v1'>) => ...`). The second
 * argument says how long loom will wait for the answer, with a signal for when it stops waiting.
 */
export type HookHandler<Request, Response> = {
  bivariant(request: Request, call: HookCall): HookResult<Response>;
}['bivariant'];
