/**
 * The CompositeController and DecoratorController specs as loom uses them: validated, with every
 * default applied and every duration in milliseconds (see `parse-controller.ts`). Field names follow
 * the Metacontroller API so a manifest reads the same as its parsed value.
 */
import type { LabelSelector, SelectorRequirement } from './label-selector.ts';
import type { KubeObject } from './object.ts';

/** Hook request/response format (docs/hook-protocol.md, "Object maps and hook versions"): `v2` keys object maps uniformly. */
export type HookVersion = 'v1' | 'v2';
/** Every {@link HookVersion}. */
export const HOOK_VERSIONS: readonly HookVersion[] = ['v1', 'v2'];

/** Response decoding: `strict` rejects unknown top-level fields, `loose` ignores them. */
export type ResponseUnmarshalMode = 'loose' | 'strict';
/** Every {@link ResponseUnmarshalMode}. */
export const RESPONSE_UNMARSHAL_MODES: readonly ResponseUnmarshalMode[] = ['loose', 'strict'];

/** How existing children that differ from the desired state are updated. */
export type UpdateMethod = 'OnDelete' | 'Recreate' | 'InPlace' | 'RollingRecreate' | 'RollingInPlace';
/** Every {@link UpdateMethod}. */
export const UPDATE_METHODS: readonly UpdateMethod[] = ['OnDelete', 'Recreate', 'InPlace', 'RollingRecreate', 'RollingInPlace'];

/** Defaults applied in code (the CRD only defaults hook `version` and secret key names). */
export const DEFAULTS = {
  updateMethod: 'OnDelete',
  hookVersion: 'v1',
  webhookTimeoutMs: 10_000,
  servicePort: 80,
  serviceProtocol: 'http',
  jsonataTimeoutMs: 1_000,
  /** A JSONata evaluation that needs longer is a runaway; and a call holds an evaluator process that long. */
  jsonataMaxTimeoutMs: 30_000,
  /** Timers cannot wait longer (2^31 - 1 ms, about 24.8 days): a longer one fires at once. */
  webhookMaxTimeoutMs: 2_147_483_647,
  minResyncPeriodSeconds: 1,
  /** The longest resync period a timer can wait, in whole seconds (2^31 - 1 ms). */
  maxResyncPeriodSeconds: 2_147_483,
  revisionFieldPaths: ['spec'],
  authorizationType: 'Bearer',
  caBundleKey: 'ca.crt',
  certKey: 'tls.crt',
  privateKeyKey: 'tls.key',
  usernameKey: 'username',
  passwordKey: 'password',
} as const;

/** The response decoding mode a hook version implies when the webhook does not set one. */
export function defaultUnmarshalMode(version: HookVersion): ResponseUnmarshalMode {
  return version === 'v2' ? 'strict' : 'loose';
}

/** A resource type: `apiVersion` (`group/version` or `version`) and lower-case plural `resource`. */
export interface ResourceRule {
  apiVersion: string;
  resource: string;
}

/** `spec.parentResource` of a CompositeController. */
export interface ParentResourceRule extends ResourceRule {
  /** Absent: every parent is handled. */
  labelSelector?: LabelSelector;
  /** Dotted paths copied into ControllerRevisions; default `["spec"]`. */
  revisionHistory: { fieldPaths: string[] };
  ignoreStatusChanges: boolean;
}

/** One rolling-update status check: a `status.conditions[]` entry the child must have. */
export interface StatusConditionCheck {
  type: string;
  status?: string;
  reason?: string;
}

/** `updateStrategy` of a child rule; `statusChecks` only matter for the rolling methods. */
export interface ChildUpdateStrategy {
  method: UpdateMethod;
  statusChecks: { conditions: StatusConditionCheck[] };
}

/** `deletionPolicy` (loom): what happens to a child that drops out of the desired set or whose parent goes. */
export type DeletionPolicy = 'Delete' | 'Orphan' | 'Retain';
/** Every {@link DeletionPolicy}. */
export const DELETION_POLICIES: readonly DeletionPolicy[] = ['Delete', 'Orphan', 'Retain'];

/** `onImmutableChange` (loom): what an update the API server refuses for an immutable field does. */
export type ImmutableChangePolicy = 'Recreate' | 'Fail';
/** Every {@link ImmutableChangePolicy}. */
export const IMMUTABLE_CHANGE_POLICIES: readonly ImmutableChangePolicy[] = ['Recreate', 'Fail'];

/** `adopt` (loom): whether orphans that match the parent's selector are adopted. */
export type AdoptPolicy = 'IfExists' | 'Never';
/** Every {@link AdoptPolicy}. */
export const ADOPT_POLICIES: readonly AdoptPolicy[] = ['IfExists', 'Never'];

/**
 * loom's per-type child policies (docs/ordering-and-readiness.md): each may also be set per child by an
 * annotation on the desired object, which wins. Absent fields keep Metacontroller's behaviour.
 */
export interface ChildPolicies {
  /** The wave of the type's children; default 0. Lower waves are written (and ready) first. */
  wave?: number;
  /** A JSONata expression over the observed child (`$`): the child is ready when it yields `true`. Default: kstatus. */
  readyWhen?: string;
  /** Default `Delete`. */
  deletionPolicy?: DeletionPolicy;
  /** Default: the update method decides (Metacontroller: the update fails). */
  onImmutableChange?: ImmutableChangePolicy;
  /** Default `IfExists` (Metacontroller adopts). */
  adopt?: AdoptPolicy;
}

/** One `spec.childResources[]` entry. */
export interface ChildResourceRule extends ResourceRule, ChildPolicies {
  updateStrategy: ChildUpdateStrategy;
}

/** `webhook.service`: the URL is `<protocol>://<name>.<namespace>:<port><path>`. */
export interface ServiceReference {
  name: string;
  namespace: string;
  port: number;
  protocol: string;
}

/** A Secret or ConfigMap by name. */
export interface ObjectReference {
  name: string;
  namespace: string;
}

/** One key of a Secret or ConfigMap. */
export interface KeyReference extends ObjectReference {
  key: string;
}

/** CA certificates for HTTPS webhooks; exactly one source is set. */
export interface CABundle {
  inline?: string;
  secretRef?: KeyReference;
  configMapRef?: KeyReference;
}

/** Client certificate for mTLS, read from a Secret. */
export interface ClientTLS {
  secretRef: ObjectReference;
  certKey: string;
  privateKeyKey: string;
}

/** `Authorization: <type> <secret value>` (never `Basic`: that is {@link BasicAuth}). */
export interface Authorization {
  type: string;
  secretRef: KeyReference;
}

/** `Authorization: Basic base64(user:pass)` from a Secret. */
export interface BasicAuth {
  secretRef: ObjectReference;
  usernameKey: string;
  passwordKey: string;
}

/** TLS and auth settings a webhook or an endpoint config may carry; authorization and basicAuth exclude each other. */
export interface WebhookAuth {
  caBundle?: CABundle;
  clientTLS?: ClientTLS;
  authorization?: Authorization;
  basicAuth?: BasicAuth;
}

/** One `spec.endpointConfigs[]` entry: auth settings for every hook whose URL host matches. */
export interface EndpointConfig extends WebhookAuth {
  /** Host, optionally with port, matched case-insensitively. */
  host: string;
}

/** `webhook.etag`: If-None-Match response caching. */
export interface ETagConfig {
  enabled: boolean;
  /** Absent: entries never expire. */
  cacheTimeoutSeconds?: number;
  cacheCleanupSeconds?: number;
}

/** An HTTP hook. */
export interface Webhook extends WebhookAuth {
  /** The URL to POST to: `url` as written, or built from `service` + `path`. */
  url: string;
  /** As written; `url` already accounts for them. */
  service?: ServiceReference;
  path?: string;
  /** Whole-request budget; default 10 s. */
  timeoutMs: number;
  etag: ETagConfig;
  responseUnMarshallMode: ResponseUnmarshalMode;
}

/** loom's inline hook: a JSONata expression given inline or read from a ConfigMap key. */
export type JsonataHook = {
  /** Evaluation budget; default 1 s. */
  timeoutMs: number;
} & ({ expression: string; configMapRef?: never } | { configMapRef: KeyReference; expression?: never });

/** One hook: exactly one of `webhook` and `jsonata`, each with its own request/response version. */
export type Hook =
  | { version: HookVersion; webhook: Webhook; jsonata?: never }
  | { version: HookVersion; jsonata: JsonataHook; webhook?: never };

/** The decoding mode of a hook's responses (webhook setting, else implied by the version). */
export function responseModeOf(hook: Hook): ResponseUnmarshalMode {
  return hook.webhook?.responseUnMarshallMode ?? defaultUnmarshalMode(hook.version);
}

/** `spec.hooks` of a CompositeController. `preUpdateChild`/`postUpdateChild` are accepted but unused. */
export interface CompositeControllerHooks {
  sync?: Hook;
  finalize?: Hook;
  customize?: Hook;
  preUpdateChild?: Hook;
  postUpdateChild?: Hook;
}

/** `spec` of a CompositeController. */
export interface CompositeControllerSpec {
  parentResource: ParentResourceRule;
  childResources: ChildResourceRule[];
  hooks: CompositeControllerHooks;
  /** Absent: no periodic resync; otherwise at least 1. */
  resyncPeriodSeconds?: number;
  generateSelector: boolean;
  endpointConfigs: EndpointConfig[];
  /**
   * loom: write a `Ready` condition on the parent, aggregated from its children
   * (docs/ordering-and-readiness.md). Absent or false: the parent's status is the hook's alone.
   */
  readyCondition?: boolean;
  /**
   * loom: when a parent is deleted, delete its children in reverse order (waves, dependsOn) before the
   * parent goes, which takes loom's finalizer on every parent with ordered children
   * (docs/ordering-and-readiness.md). Absent or false: the garbage collector deletes them, all at once.
   */
  orderedTeardown?: boolean;
}

/** `annotationSelector` of a decorator resource rule: a label selector over annotations. */
export interface AnnotationSelector {
  matchAnnotations?: Record<string, string>;
  matchExpressions?: SelectorRequirement[];
}

/** One `spec.resources[]` entry of a DecoratorController: a target type and which of its objects. */
export interface DecoratorResourceRule extends ResourceRule {
  labelSelector?: LabelSelector;
  annotationSelector?: AnnotationSelector;
  ignoreStatusChanges: boolean;
}

/** One `spec.attachments[]` entry. Rolling methods behave like Recreate/InPlace for decorators. */
export interface AttachmentRule extends ResourceRule {
  updateStrategy: { method: UpdateMethod };
}

/** `spec.hooks` of a DecoratorController. */
export interface DecoratorControllerHooks {
  sync?: Hook;
  finalize?: Hook;
  customize?: Hook;
}

/** `spec` of a DecoratorController. */
export interface DecoratorControllerSpec {
  resources: DecoratorResourceRule[];
  attachments: AttachmentRule[];
  hooks: DecoratorControllerHooks;
  resyncPeriodSeconds?: number;
  endpointConfigs: EndpointConfig[];
}

/** A parsed controller object. */
export interface ParsedController<Spec> {
  /** `metadata.name`. */
  name: string;
  /** The object as received; hooks get exactly this as `controller`. */
  object: KubeObject;
  spec: Spec;
}

/** A parsed CompositeController. */
export type CompositeController = ParsedController<CompositeControllerSpec>;
/** A parsed DecoratorController. */
export type DecoratorController = ParsedController<DecoratorControllerSpec>;
