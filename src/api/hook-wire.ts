/**
 * The hook wire protocol (docs/hook-protocol.md: "Sync and finalize (webhooks)",
 * "DecoratorController requests", "Customize and related objects"), the same for webhooks and JSONata
 * hooks: request builders, response types, and response decoders that check every top-level field of
 * untrusted input before anything downstream acts on it.
 */
import type { HookVersion, ResponseUnmarshalMode } from './controller-spec.ts';
import { FieldReader, formatProblem, isRecord, omitUndefined, type FieldProblem } from './field-reader.ts';
import type { LabelSelector } from './label-selector.ts';
import { buildObjectMap, type ObjectMap, type TypeRef } from './object-map.ts';
import { readinessFor, type ObjectReadiness, type ReadinessMap } from './request-readiness.ts';
import type { Json, KubeObject } from './object.ts';
import { readLabelSelector } from './parse-selector.ts';

/**
 * The header each webhook request carries with the milliseconds left of loom's timeout for it when
 * it was sent (docs/hook-protocol.md, "Deadline"): a hook that will not answer in time can stop early.
 */
export const HOOK_TIMEOUT_HEADER = 'X-Loom-Timeout-Ms';

/** A JSON object (a parent `status`, for instance). */
export type JsonObject = { [key: string]: Json };

/** CompositeController sync/finalize request. `finalizing` is true only for the finalize hook. */
export interface CompositeHookRequest {
  controller: KubeObject;
  parent: KubeObject;
  children: ObjectMap;
  related: ObjectMap;
  finalizing: boolean;
  /** loom's addition, which Metacontroller hooks ignore: the readiness of every child in `children`. */
  readiness?: ReadinessMap;
}

/** DecoratorController sync/finalize request: `object` (not `parent`) and `attachments`. */
export interface DecoratorHookRequest {
  controller: KubeObject;
  object: KubeObject;
  attachments: ObjectMap;
  related: ObjectMap;
  finalizing: boolean;
  /** loom's addition: the readiness of every attachment in `attachments`. */
  readiness?: ReadinessMap;
}

/** Customize request, for both controller kinds (the field is `parent` for decorators too). */
export interface CustomizeHookRequest {
  controller: KubeObject;
  parent: KubeObject;
}

/** CompositeController sync/finalize response, with absent fields at their zero values. */
export interface CompositeHookResponse {
  /** Replaces the parent's `.status` (`null`: replace with `{}`). */
  status: JsonObject | null;
  children: KubeObject[];
  /** `0`: no delayed resync. */
  resyncAfterSeconds: number;
  finalized: boolean;
}

/** DecoratorController sync/finalize response. */
export interface DecoratorHookResponse {
  /** Merged into the target's labels; `null` deletes a key. */
  labels: Record<string, string | null>;
  annotations: Record<string, string | null>;
  /** `null`: leave the target's status alone. */
  status: JsonObject | null;
  attachments: KubeObject[];
  resyncAfterSeconds: number;
  finalized: boolean;
}

/** One related-object rule of a customize response (selection rules: docs/hook-protocol.md, "Customize and related objects"). */
export interface RelatedResourceRule {
  apiVersion: string;
  resource: string;
  labelSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  namespace?: string;
  names?: string[];
}

/** Customize response. */
export interface CustomizeHookResponse {
  relatedResources: RelatedResourceRule[];
}

/** A decoded response, and the unknown top-level fields loose mode ignored (for the caller to log). */
export interface DecodedResponse<T> {
  response: T;
  ignoredFields: string[];
}

/** A hook response that does not have the shape of the protocol; the message names every bad field. */
export class HookResponseError extends Error {
  override readonly name = 'HookResponseError';
  /** Each problem with its field path, e.g. `children[2].metadata.name`. */
  readonly problems: readonly FieldProblem[];

  constructor(problems: readonly FieldProblem[]) {
    super(problems.map(formatProblem).join('; '));
    this.problems = problems;
  }
}

/** Objects of some types, to be keyed into an object map for one hook version. */
export interface TypedObjects {
  objects: readonly KubeObject[];
  /** Types that appear even when empty. */
  declaredTypes: readonly TypeRef[];
}

/** Input of {@link compositeRequest}. */
export interface CompositeRequestInput {
  controller: KubeObject;
  parent: KubeObject;
  children: TypedObjects;
  /** Absent when there is no customize hook: `related` is then `{}`. */
  related?: TypedObjects | undefined;
  /** The readiness of each of `children.objects`, in their order; absent: the request has no `readiness`. */
  readiness?: readonly ObjectReadiness[] | undefined;
  version: HookVersion;
  finalizing: boolean;
}

/** Input of {@link decoratorRequest}. */
export interface DecoratorRequestInput {
  controller: KubeObject;
  object: KubeObject;
  attachments: TypedObjects;
  related?: TypedObjects | undefined;
  /** The readiness of each of `attachments.objects`, in their order; absent: the request has no `readiness`. */
  readiness?: readonly ObjectReadiness[] | undefined;
  version: HookVersion;
  finalizing: boolean;
}

function mapFor(typed: TypedObjects | undefined, version: HookVersion, parent: KubeObject): ObjectMap {
  if (typed === undefined) return {};
  return buildObjectMap({ ...typed, version, parentNamespace: parent.metadata.namespace });
}

/** The CompositeController sync/finalize request, object maps keyed for `version`. */
export function compositeRequest(input: CompositeRequestInput): CompositeHookRequest {
  const { controller, parent, version } = input;
  return {
    controller,
    parent,
    children: mapFor(input.children, version, parent),
    related: mapFor(input.related, version, parent),
    finalizing: input.finalizing,
    ...readinessFor(input.children, input.readiness, version, parent),
  };
}

/** The DecoratorController sync/finalize request, object maps keyed for `version`. */
export function decoratorRequest(input: DecoratorRequestInput): DecoratorHookRequest {
  const { controller, object, version } = input;
  return {
    controller,
    object,
    attachments: mapFor(input.attachments, version, object),
    related: mapFor(input.related, version, object),
    finalizing: input.finalizing,
    ...readinessFor(input.attachments, input.readiness, version, object),
  };
}

/** The customize request (for a decorator, `parent` is the target object). */
export function customizeRequest(input: CustomizeHookRequest): CustomizeHookRequest {
  return { controller: input.controller, parent: input.parent };
}

// ---- decoding -------------------------------------------------------------------------------

interface Envelope {
  root: FieldReader;
  ignoredFields: string[];
}

/** Checks the body is an object; unknown top-level fields are errors (strict) or returned (loose). */
function openEnvelope(body: unknown, mode: ResponseUnmarshalMode, known: readonly string[]): Envelope {
  const root = FieldReader.root(body);
  if (!isRecord(body)) {
    root.problem('expected a JSON object');
    return { root, ignoredFields: [] };
  }
  const unknown = Object.keys(body).filter((key) => !known.includes(key));
  if (mode === 'loose') return { root, ignoredFields: unknown };
  for (const key of unknown) root.field(key).problem('unknown field (strict mode)');
  return { root, ignoredFields: [] };
}

function close<T>(envelope: Envelope, response: T): DecodedResponse<T> {
  const { problems } = envelope.root.report;
  if (problems.length > 0) throw new HookResponseError(problems);
  return { response, ignoredFields: envelope.ignoredFields };
}

function readStatus(r: FieldReader): JsonObject | null {
  if (!r.present) return null;
  return (r.object() as JsonObject | undefined) ?? null;
}

function readResyncAfter(r: FieldReader): number {
  if (!r.present) return 0;
  if (typeof r.value === 'number' && Number.isFinite(r.value) && r.value >= 0) return r.value;
  return r.problem('expected a non-negative finite number') ?? 0;
}

/** A desired child/attachment: `apiVersion`, `kind`, `metadata.name` are what loom needs to act on it. */
function readDesiredObject(r: FieldReader): KubeObject | undefined {
  if (!isRecord(r.value)) return r.problem('expected an object');
  r.field('apiVersion').nonEmptyString();
  r.field('kind').nonEmptyString();
  const metadata = r.field('metadata');
  if (metadata.object(true) !== undefined) {
    metadata.field('name').nonEmptyString();
    metadata.field('namespace').string();
    metadata.field('labels').stringMap();
    metadata.field('annotations').stringMap();
  }
  return r.value as KubeObject;
}

function readDesiredObjects(r: FieldReader): KubeObject[] {
  return (r.items() ?? []).map(readDesiredObject).filter((obj) => obj !== undefined);
}

/** A label/annotation patch: string values set, `null` values delete. */
function readMetadataPatch(r: FieldReader): Record<string, string | null> {
  const entries = r.entries() ?? [];
  for (const [, value] of entries) {
    if (value.value !== null && typeof value.value !== 'string') value.problem('expected a string or null');
  }
  return Object.fromEntries(entries.map(([key, value]) => [key, value.value as string | null]));
}

/**
 * Decodes a CompositeController sync/finalize response.
 * @throws HookResponseError naming every bad field.
 */
export function decodeCompositeResponse(body: unknown, mode: ResponseUnmarshalMode): DecodedResponse<CompositeHookResponse> {
  const envelope = openEnvelope(body, mode, ['status', 'children', 'resyncAfterSeconds', 'finalized']);
  const { root } = envelope;
  return close(envelope, {
    status: readStatus(root.field('status')),
    children: readDesiredObjects(root.field('children')),
    resyncAfterSeconds: readResyncAfter(root.field('resyncAfterSeconds')),
    finalized: root.field('finalized').boolean() ?? false,
  });
}

/**
 * Decodes a DecoratorController sync/finalize response.
 * @throws HookResponseError naming every bad field.
 */
export function decodeDecoratorResponse(body: unknown, mode: ResponseUnmarshalMode): DecodedResponse<DecoratorHookResponse> {
  const known = ['labels', 'annotations', 'status', 'attachments', 'resyncAfterSeconds', 'finalized'];
  const envelope = openEnvelope(body, mode, known);
  const { root } = envelope;
  return close(envelope, {
    labels: readMetadataPatch(root.field('labels')),
    annotations: readMetadataPatch(root.field('annotations')),
    status: readStatus(root.field('status')),
    attachments: readDesiredObjects(root.field('attachments')),
    resyncAfterSeconds: readResyncAfter(root.field('resyncAfterSeconds')),
    finalized: root.field('finalized').boolean() ?? false,
  });
}

function readRelatedRule(r: FieldReader): RelatedResourceRule {
  if (!isRecord(r.value)) return r.problem('expected an object') ?? { apiVersion: '', resource: '' };
  return omitUndefined({
    apiVersion: r.field('apiVersion').nonEmptyString() ?? '',
    resource: r.field('resource').nonEmptyString() ?? '',
    labelSelector: readLabelSelector(r.field('labelSelector')),
    namespaceSelector: readLabelSelector(r.field('namespaceSelector')),
    namespace: r.field('namespace').string(),
    names: r.field('names').stringList(),
  });
}

/**
 * Decodes a customize response.
 * @throws HookResponseError naming every bad field.
 */
export function decodeCustomizeResponse(body: unknown, mode: ResponseUnmarshalMode): DecodedResponse<CustomizeHookResponse> {
  const envelope = openEnvelope(body, mode, ['relatedResources']);
  return close(envelope, { relatedResources: (envelope.root.field('relatedResources').items() ?? []).map(readRelatedRule) });
}
