/**
 * Turns an untrusted CompositeController / DecoratorController object into a validated spec with
 * every default applied, or into the full list of problems, each with its field path. The CRD
 * schema catches some of these at apply time; this catches all of them, also for manifests that
 * never reached an API server (`loom validate`, `loom render`).
 */
import {
  DEFAULTS,
  UPDATE_METHODS,
  type AttachmentRule,
  type ChildResourceRule,
  type CompositeController,
  type CompositeControllerHooks,
  type CompositeControllerSpec,
  type DecoratorController,
  type DecoratorControllerHooks,
  type DecoratorControllerSpec,
  type DecoratorResourceRule,
  type EndpointConfig,
  type Hook,
  type ParentResourceRule,
  type ResourceRule,
  type StatusConditionCheck,
  type WebhookAuth,
} from './controller-spec.ts';
import { FieldReader, omitUndefined, type FieldProblem } from './field-reader.ts';
import { checkApiVersion, checkResourceName } from './name-syntax.ts';
import { ATTACHMENT_HINTS, CHILD_POLICY_FIELDS, CHILD_RULE_HINTS, readChildPolicies } from './parse-child-policies.ts';
import { groupOf, type KubeObject } from './object.ts';
import { readEndpointConfigs, readHook } from './parse-hook.ts';
import { readAnnotationSelector, readLabelSelector } from './parse-selector.ts';
import { GROUP_VERSION, KINDS } from './well-known.ts';

/**
 * The outcome of parsing: the value, or every problem found. Warnings (unknown fields, values that
 * were raised to their minimum, unused hooks) come with either and are for the user to see.
 */
export type ParseResult<T> =
  | { ok: true; value: T; warnings: FieldProblem[] }
  | { ok: false; problems: FieldProblem[]; warnings: FieldProblem[] };

function readResourceRule(r: FieldReader): ResourceRule {
  r.object(true);
  const apiVersion = r.field('apiVersion').string({ required: true, nonEmpty: true }) ?? '';
  const resource = r.field('resource').string({ required: true, nonEmpty: true }) ?? '';
  // Empty ones were reported already; one complaint is enough.
  if (apiVersion) checkApiVersion(r.field('apiVersion'), apiVersion);
  if (resource) checkResourceName(r.field('resource'), resource);
  return { apiVersion, resource };
}

/**
 * One rule per resource (decorator target, child or attachment type). Versions do not tell rules
 * apart: `apps/v1` and `apps/v1beta1` Deployments are the same objects, so two rules for them would
 * claim, update and delete the same children under two update strategies (or decorate one target
 * twice, as queue keys name the group and kind, not the version).
 */
function refuseRepeatedTargets(list: FieldReader, rules: readonly ResourceRule[]): void {
  // Only an array yields rules, and reading the items of an array reports nothing new.
  const items = rules.length > 1 ? (list.items() ?? []) : [];
  const seen = new Map<string, number>();
  rules.forEach((rule, i) => {
    if (!rule.apiVersion || !rule.resource) return;
    const key = `${groupOf(rule.apiVersion)}/${rule.resource}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else items[i]?.problem(`names the same resource as ${items[first]?.path ?? ''} (${rule.resource} in ${groupOf(rule.apiVersion) || 'the core group'}); merge them into one rule`);
  });
}

/** Metacontroller splits revision field paths on `.` and walks object fields; no array indexes. */
const FIELD_PATH = /^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*$/;

/** `revisionHistory.fieldPaths`; a path that is not dotted field names would never match anything. */
function readFieldPaths(r: FieldReader): string[] | undefined {
  const fieldPaths = r.stringList();
  fieldPaths?.forEach((path, i) => {
    if (!FIELD_PATH.test(path)) r.items()?.[i]?.problem(`expected a dotted path of field names such as spec.template; got ${JSON.stringify(path)}`);
  });
  return fieldPaths;
}

function readParentResource(r: FieldReader): ParentResourceRule {
  r.warnUnknownFields(['apiVersion', 'resource', 'labelSelector', 'revisionHistory', 'ignoreStatusChanges']);
  const history = r.field('revisionHistory');
  history.object();
  history.warnUnknownFields(['fieldPaths']);
  const fieldPaths = readFieldPaths(history.field('fieldPaths'));
  return omitUndefined({
    ...readResourceRule(r),
    labelSelector: readLabelSelector(r.field('labelSelector')),
    revisionHistory: { fieldPaths: fieldPaths?.length ? fieldPaths : [...DEFAULTS.revisionFieldPaths] },
    ignoreStatusChanges: r.field('ignoreStatusChanges').boolean() ?? false,
  });
}

function readStatusCheck(r: FieldReader): StatusConditionCheck {
  r.object(true);
  r.warnUnknownFields(['type', 'status', 'reason']);
  return omitUndefined({
    type: r.field('type').string({ required: true, nonEmpty: true }) ?? '',
    status: r.field('status').string(),
    reason: r.field('reason').string(),
  });
}

/** `updateStrategy.method`; absent, empty or missing strategy all mean OnDelete. */
function readMethod(strategy: FieldReader): ChildResourceRule['updateStrategy']['method'] {
  strategy.object();
  const method = strategy.field('method');
  if (method.value === '') return DEFAULTS.updateMethod;
  return method.oneOf(UPDATE_METHODS) ?? DEFAULTS.updateMethod;
}

function readChildResource(r: FieldReader): ChildResourceRule {
  r.warnUnknownFields(['apiVersion', 'resource', 'updateStrategy', ...CHILD_POLICY_FIELDS], CHILD_RULE_HINTS);
  const strategy = r.field('updateStrategy');
  strategy.warnUnknownFields(['method', 'statusChecks']);
  const checks = strategy.field('statusChecks');
  checks.object();
  checks.warnUnknownFields(['conditions']);
  const conditions = (checks.field('conditions').items() ?? []).map(readStatusCheck);
  const method = readMethod(strategy);
  // The user probably meant a rolling method: only those wait for status checks.
  if (conditions.length > 0 && !method.startsWith('Rolling')) checks.warn(`only RollingRecreate and RollingInPlace use status checks; ignored with ${method}`);
  return { ...readResourceRule(r), updateStrategy: { method, statusChecks: { conditions } }, ...readChildPolicies(r) };
}

/**
 * Reads the named hooks of `spec.hooks`, which must be present (no hooks: the controller cannot run).
 * Without a sync hook every sync of a live parent fails, as in Metacontroller: with a finalize hook the
 * controller can still finalize (a warning), with neither it can do nothing at all (a problem).
 */
function readHooks<K extends string>(r: FieldReader, names: readonly K[]): Partial<Record<K, Hook>> {
  const present = r.object(true) !== undefined;
  r.warnUnknownFields(names);
  const hooks: Partial<Record<K, Hook>> = {};
  for (const name of names) {
    const hook = readHook(r.field(name));
    if (hook) hooks[name] = hook;
  }
  // A hook that failed to parse was reported already; one complaint is enough. `null` is no hook.
  const given = (name: string): boolean => r.field(name).value !== undefined && r.field(name).value !== null;
  const sync = r.field('sync');
  if (!present || given('sync')) return hooks;
  if (!given('finalize')) sync.problem('is required: without a sync hook (or a finalize hook) the controller can do nothing');
  else sync.warn('not set: every sync of a parent that is not being deleted fails; only the finalize hook is called');
  return hooks;
}

function readResyncPeriod(r: FieldReader): number | undefined {
  const seconds = r.integer();
  if (seconds !== undefined && seconds > DEFAULTS.maxResyncPeriodSeconds) {
    // Metacontroller waits any int32 of seconds; a timer asked to wait longer than it can fires at once,
    // which would resync every parent over and over.
    r.warn('longer than a timer can wait (about 24 days); using that instead');
    return DEFAULTS.maxResyncPeriodSeconds;
  }
  if (seconds === undefined || seconds >= DEFAULTS.minResyncPeriodSeconds) return seconds;
  r.warn(`below ${DEFAULTS.minResyncPeriodSeconds}s; raised to ${DEFAULTS.minResyncPeriodSeconds}s`);
  return DEFAULTS.minResyncPeriodSeconds;
}

/** An HTTP auth scheme is a token (RFC 9110 §11.1): anything else would garble the `Authorization` header. */
const AUTH_SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';
/** What a Kubernetes-style `caBundle` (base64 of the PEM) looks like; a common paste from admission webhooks. */
const BASE64_PEM_PREFIX = 'LS0tLS1CRUdJTi';

/** An inline CA bundle must be PEM text (the runner parses it fully when the controller starts). */
function checkInlineCA(r: FieldReader, caBundle: WebhookAuth['caBundle']): void {
  const inline = caBundle?.inline;
  // With more than one source the caBundle was reported already; one complaint is enough.
  if (inline === undefined || caBundle?.secretRef || caBundle?.configMapRef || inline.includes(PEM_CERTIFICATE)) return;
  const hint = inline.trimStart().startsWith(BASE64_PEM_PREFIX) ? ' (this looks base64-encoded: give the PEM text itself)' : '';
  r.field('caBundle').field('inline').problem(`expected PEM text with a ${PEM_CERTIFICATE} block${hint}`);
}

/** Checks the parts of TLS/auth settings the readers accept as plain strings. */
function checkWebhookAuth(r: FieldReader, auth: WebhookAuth): void {
  if (auth.authorization && !AUTH_SCHEME.test(auth.authorization.type)) {
    r.field('authorization').field('type').problem('expected an HTTP auth scheme such as Bearer (no spaces or separators)');
  }
  checkInlineCA(r, auth.caBundle);
}

/** Host of an endpoint config as the matcher reads it: no scheme, path, user or spaces. */
const HOST_FORM = /^(\[[^\]\s]*\]|[^:/@\s[\]]+)(:\d{1,5})?$/;

/**
 * Warns about `endpointConfigs[]` entries that can never be used: a `host` that is not `host[:port]`
 * (a URL, say), and a host an earlier entry already names (the first match wins).
 */
function checkEndpointConfigs(r: FieldReader, configs: readonly EndpointConfig[]): void {
  // Only an array yields entries, and reading the items of an array reports nothing new.
  const items = configs.length > 0 ? (r.field('endpointConfigs').items() ?? []) : [];
  const seen = new Map<string, number>();
  configs.forEach((config, i) => {
    const entry = items[i];
    if (!entry) return;
    checkWebhookAuth(entry, config);
    if (!config.host) return;
    if (!HOST_FORM.test(config.host)) entry.field('host').warn('not a host or host:port (no scheme or path); this entry never matches');
    const key = config.host.toLowerCase();
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else entry.field('host').warn(`same host as endpointConfigs[${first}]; only the first matching entry is used`);
  });
}

/** The checks on TLS/auth settings of every webhook of `hooks` and of `endpointConfigs`. */
function checkSecurity(spec: FieldReader, hooks: CompositeControllerHooks | DecoratorControllerHooks, configs: readonly EndpointConfig[]): void {
  for (const [name, hook] of Object.entries(hooks) as [string, Hook | undefined][]) {
    if (hook?.webhook) checkWebhookAuth(spec.field('hooks').field(name).field('webhook'), hook.webhook);
  }
  checkEndpointConfigs(spec, configs);
}

/**
 * The customize hook's version decides which related objects are selected (v1 confines a namespaced
 * parent to its namespace), the sync and finalize hooks' versions how they are keyed: a v1 hook's map
 * drops what a v2 customize picked elsewhere, silently. Said once, where it can be fixed.
 */
function checkRelatedVersions(spec: FieldReader, hooks: { sync?: Hook | undefined; finalize?: Hook | undefined; customize?: Hook | undefined }): void {
  const customize = hooks.customize?.version;
  if (customize !== 'v2') return;
  for (const name of ['sync', 'finalize'] as const) {
    if (hooks[name]?.version !== 'v1') continue;
    spec.field('hooks').field(name).field('version').warn('v1 while customize is v2: related objects outside a namespaced parent\'s namespace are left out of this hook\'s request');
  }
}

const COMPOSITE_HOOKS = ['sync', 'finalize', 'customize', 'preUpdateChild', 'postUpdateChild'] as const;

function readCompositeSpec(spec: FieldReader): CompositeControllerSpec {
  spec.object(true);
  spec.warnUnknownFields(['parentResource', 'childResources', 'hooks', 'resyncPeriodSeconds', 'generateSelector', 'endpointConfigs', 'readyCondition', 'orderedTeardown']);
  const parentResource = readParentResource(spec.field('parentResource'));
  const childResources = (spec.field('childResources').items() ?? []).map(readChildResource);
  refuseRepeatedTargets(spec.field('childResources'), childResources);
  const hooks: CompositeControllerHooks = readHooks(spec.field('hooks'), COMPOSITE_HOOKS);
  for (const unused of ['preUpdateChild', 'postUpdateChild'] as const) {
    if (hooks[unused]) spec.field('hooks').field(unused).warn('accepted for Metacontroller compatibility but never called');
  }
  const resyncPeriodSeconds = readResyncPeriod(spec.field('resyncPeriodSeconds'));
  const generateSelector = spec.field('generateSelector').boolean() ?? false;
  const endpointConfigs = readEndpointConfigs(spec.field('endpointConfigs'));
  checkSecurity(spec, hooks, endpointConfigs);
  checkRelatedVersions(spec, hooks);
  const readyCondition = spec.field('readyCondition').boolean();
  const orderedTeardown = spec.field('orderedTeardown').boolean();
  return omitUndefined({ parentResource, childResources, hooks, resyncPeriodSeconds, generateSelector, endpointConfigs, readyCondition, orderedTeardown });
}

function readDecoratorResource(r: FieldReader): DecoratorResourceRule {
  r.warnUnknownFields(['apiVersion', 'resource', 'labelSelector', 'annotationSelector', 'ignoreStatusChanges']);
  return omitUndefined({
    ...readResourceRule(r),
    labelSelector: readLabelSelector(r.field('labelSelector')),
    annotationSelector: readAnnotationSelector(r.field('annotationSelector')),
    ignoreStatusChanges: r.field('ignoreStatusChanges').boolean() ?? false,
  });
}

function readAttachment(r: FieldReader): AttachmentRule {
  r.warnUnknownFields(['apiVersion', 'resource', 'updateStrategy'], ATTACHMENT_HINTS);
  r.field('updateStrategy').warnUnknownFields(['method']);
  return { ...readResourceRule(r), updateStrategy: { method: readMethod(r.field('updateStrategy')) } };
}

/** A field a DecoratorController may carry by mistake for a CompositeController's. */
const DECORATOR_HINTS = {
  readyCondition: 'only a CompositeController writes a Ready condition on its parent',
  orderedTeardown: 'a DecoratorController writes its attachments without order, so the garbage collector deletes them',
};

function readDecoratorSpec(spec: FieldReader): DecoratorControllerSpec {
  spec.object(true);
  spec.warnUnknownFields(['resources', 'attachments', 'hooks', 'resyncPeriodSeconds', 'endpointConfigs'], DECORATOR_HINTS);
  const resources = (spec.field('resources').items(true) ?? []).map(readDecoratorResource);
  // Metacontroller takes an empty list and decorates nothing, for good; say so instead.
  if (Array.isArray(spec.field('resources').value) && resources.length === 0) spec.field('resources').problem('expected at least one resource rule');
  refuseRepeatedTargets(spec.field('resources'), resources);
  const attachments = (spec.field('attachments').items() ?? []).map(readAttachment);
  refuseRepeatedTargets(spec.field('attachments'), attachments);
  const hooks: DecoratorControllerHooks = readHooks(spec.field('hooks'), ['sync', 'finalize', 'customize'] as const);
  const resyncPeriodSeconds = readResyncPeriod(spec.field('resyncPeriodSeconds'));
  const endpointConfigs = readEndpointConfigs(spec.field('endpointConfigs'));
  checkSecurity(spec, hooks, endpointConfigs);
  checkRelatedVersions(spec, hooks);
  return omitUndefined({ resources, attachments, hooks, resyncPeriodSeconds, endpointConfigs });
}

/** Checks the envelope (apiVersion, kind when given; metadata.name) and returns the name. */
function readEnvelope(root: FieldReader, kind: string): string {
  if (root.object(true) === undefined) return '';
  const apiVersion = root.field('apiVersion').string();
  if (apiVersion !== undefined && apiVersion !== GROUP_VERSION) root.field('apiVersion').problem(`expected ${GROUP_VERSION}`);
  const actualKind = root.field('kind').string();
  if (actualKind !== undefined && actualKind !== kind) root.field('kind').problem(`expected ${kind}`);
  root.field('metadata').object(true);
  return root.field('metadata').field('name').string({ required: true, nonEmpty: true }) ?? '';
}

function parse<Spec>(obj: unknown, kind: string, readSpec: (spec: FieldReader) => Spec): ParseResult<{ name: string; object: KubeObject; spec: Spec }> {
  const root = FieldReader.root(obj);
  const name = readEnvelope(root, kind);
  const spec = readSpec(root.field('spec'));
  const { problems, warnings } = root.report;
  if (problems.length > 0) return { ok: false, problems, warnings };
  return { ok: true, value: { name, object: obj as KubeObject, spec }, warnings };
}

/**
 * Validates a CompositeController object and applies the defaults Metacontroller applies in code
 * (update method OnDelete, hook version v1, loose/strict by version, webhook timeout 10s, service
 * port 80 and protocol http, JSONata timeout 1s, resync ≥ 1s, revision field paths `["spec"]`).
 */
export function parseCompositeController(obj: unknown): ParseResult<CompositeController> {
  return parse(obj, KINDS.compositeController.kind, readCompositeSpec);
}

/** Validates a DecoratorController object and applies the same defaults as {@link parseCompositeController}. */
export function parseDecoratorController(obj: unknown): ParseResult<DecoratorController> {
  return parse(obj, KINDS.decoratorController.kind, readDecoratorSpec);
}
