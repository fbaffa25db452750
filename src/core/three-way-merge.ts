/**
 * Metacontroller's "dynamic apply" (docs/concepts.md, "Applying children"): a client-side, type-agnostic
 * 3-way merge in the style of `kubectl apply`, used to update children in
 * `--apply-strategy=dynamic-apply` mode. The result is a full object carrying the observed
 * `resourceVersion`, to be sent as a PUT.
 *
 * Every rule and quirk below is Metacontroller's, kept on purpose: children it has managed must merge
 * to the same result under loom, or a switch of controller would update (or, with `Recreate`, delete)
 * every child once.
 */
import type { Json, KubeObject } from '../api/object.ts';
import { canonicalJson, jsonEqual } from '../api/json-value.ts';
import { LAST_APPLIED_ANNOTATION } from '../api/well-known.ts';

/** Annotation holding the JSON of the last desired object loom (or Metacontroller) applied. */
export { jsonEqual, LAST_APPLIED_ANNOTATION };

type JsonObject = { [key: string]: Json };

/**
 * Keys that mark a list of objects as an associative list, highest priority first. All items of
 * observed, last-applied and desired must carry the key for it to be chosen.
 */
const LIST_MAP_KEYS = ['containerPort', 'port', 'mountPath', 'name', 'uid', 'ip', 'path'] as const;

/** `metadata` fields only the API server sets; a merge never changes them. */
const SYSTEM_METADATA_FIELDS = [
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
] as const;

function isJsonObject(value: Json | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A member of `obj` only if it is its own (so `constructor`, `__proto__` are plain keys). */
function member(obj: JsonObject, key: string): Json | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * Merges `desired` into `observed`, given what was `lastApplied` before (all plain JSON; a missing
 * value and `null` mean the same):
 * - observed is an object: keys of lastApplied missing from desired are deleted, desired keys are
 *   merged recursively, keys others set survive. A non-object lastApplied or desired counts as `{}`:
 *   when types disagree the object wins (so desired `null` on an object field does not clear it).
 * - observed is a list: merged as an associative list when one exists ({@link LIST_MAP_KEYS}),
 *   otherwise replaced by desired. A non-list desired counts as `[]` for the associative merge and
 *   replaces a plain list with `null`, as Metacontroller does.
 * - otherwise (scalar, `null`, missing): desired wins.
 *
 * Returns a new value; the inputs are not modified and share nothing with the result.
 */
export function threeWayMerge(observed: Json | undefined, lastApplied: Json | undefined, desired: Json): Json {
  return structuredClone(mergeValue(observed, lastApplied, desired));
}

function mergeValue(observed: Json | undefined, lastApplied: Json | undefined, desired: Json | undefined): Json {
  if (isJsonObject(observed)) {
    return mergeObject(observed, isJsonObject(lastApplied) ? lastApplied : {}, isJsonObject(desired) ? desired : {});
  }
  if (Array.isArray(observed)) {
    return mergeList(observed, Array.isArray(lastApplied) ? lastApplied : [], Array.isArray(desired) ? desired : null);
  }
  return desired ?? null;
}

function mergeObject(observed: JsonObject, lastApplied: JsonObject, desired: JsonObject): JsonObject {
  // A Map and Object.fromEntries, so a key named `__proto__` stays a plain key.
  const result = new Map<string, Json>();
  for (const [key, value] of Object.entries(observed)) {
    const removed = Object.hasOwn(lastApplied, key) && !Object.hasOwn(desired, key);
    if (!removed) result.set(key, value);
  }
  for (const [key, value] of Object.entries(desired)) {
    result.set(key, mergeValue(member(observed, key), member(lastApplied, key), value));
  }
  return Object.fromEntries(result);
}

function mergeList(observed: Json[], lastApplied: Json[], desired: Json[] | null): Json {
  const key = listMapKeyOf([observed, lastApplied, desired ?? []]);
  if (key === undefined) return desired;
  return mergeListMap(key, observed, lastApplied, desired ?? []);
}

/** The conventional key every item of every list shares, if all items are objects and one exists. */
function listMapKeyOf(lists: readonly Json[][]): string | undefined {
  let common: Set<string> | undefined;
  for (const item of lists.flat()) {
    if (!isJsonObject(item)) return undefined;
    common = common ? common.intersection(new Set(Object.keys(item))) : new Set(Object.keys(item));
  }
  const shared = common;
  return shared && LIST_MAP_KEYS.find((key) => shared.has(key));
}

/** Item key as a string: non-string values are stringified, so `80` and `"80"` are the same item. */
function itemKey(item: Json, key: string): string {
  const value = isJsonObject(item) ? member(item, key) : undefined;
  return typeof value === 'string' ? value : canonicalJson(value ?? null);
}

/** A list of objects as an object keyed by `key`; a later duplicate wins, as in Metacontroller. */
function asMap(list: Json[], key: string): JsonObject {
  return Object.fromEntries(list.map((item) => [itemKey(item, key), item]));
}

/**
 * Merges associative lists as objects, then orders the survivors: observed items in their order, then
 * desired items not seen yet. An observed key that appears twice yields the merged item twice, as in
 * Metacontroller (the API server would not have stored such a list anyway).
 */
function mergeListMap(key: string, observed: Json[], lastApplied: Json[], desired: Json[]): Json[] {
  const merged = mergeObject(asMap(observed, key), asMap(lastApplied, key), asMap(desired, key));
  const result: Json[] = [];
  const added = new Set<string>();
  for (const item of observed) {
    const k = itemKey(item, key);
    const survivor = member(merged, k);
    if (survivor === undefined) continue;
    result.push(survivor);
    added.add(k);
  }
  for (const item of desired) {
    const k = itemKey(item, key);
    if (added.has(k)) continue;
    result.push(member(merged, k) ?? null);
    added.add(k);
  }
  return result;
}


function toJson(obj: KubeObject): JsonObject {
  return obj as unknown as JsonObject;
}

function annotationsOf(obj: JsonObject): JsonObject | undefined {
  const metadata = member(obj, 'metadata');
  const annotations = isJsonObject(metadata) ? member(metadata, 'annotations') : undefined;
  return isJsonObject(annotations) ? annotations : undefined;
}

/**
 * The last-applied object recorded on `observed`: the parsed annotation, or `{}` when it is missing,
 * is not JSON, or is not a JSON object (then everything in desired counts as new and nothing is
 * deleted, which is the safe direction).
 */
export function lastAppliedOf(observed: KubeObject): JsonObject {
  const text = annotationsOf(toJson(observed))?.[LAST_APPLIED_ANNOTATION];
  if (typeof text !== 'string') return {};
  try {
    const parsed = JSON.parse(text) as Json;
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** A copy of `desired` without the last-applied annotation: what loom applies. */
function withoutAnnotation(desired: KubeObject): JsonObject {
  const object = structuredClone(toJson(desired));
  const annotations = annotationsOf(object);
  if (annotations) delete annotations[LAST_APPLIED_ANNOTATION];
  return object;
}

/**
 * What the annotation records: `object` without the controller reference loom adds to every child,
 * exactly as Metacontroller records a child before it adds that reference. Metacontroller's 3-way
 * merge never has the reference in its desired state, so a reference in the record would read to it
 * as one loom applied and removed since: after a rollback it would strip it from every child.
 */
function intentOf(object: JsonObject): JsonObject {
  const intent = structuredClone(object);
  const metadata = member(intent, 'metadata');
  const refs = isJsonObject(metadata) ? member(metadata, 'ownerReferences') : undefined;
  if (!isJsonObject(metadata) || !Array.isArray(refs)) return intent;
  const others = refs.filter((ref) => !(isJsonObject(ref) && ref.controller === true));
  if (others.length > 0) metadata.ownerReferences = others;
  else delete metadata.ownerReferences;
  return intent;
}

/**
 * JSON text as Go's `encoding/json` writes it for Metacontroller: sorted keys, and `<`, `>`, `&`,
 * U+2028, U+2029 escaped. Byte-identical annotations mean children Metacontroller applied are not
 * seen as changed by loom. (Those characters only occur inside strings, so replacing them is safe.)
 */
function goJson(value: Json): string {
  return canonicalJson(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Sets the last-applied annotation of `target` (owned by the caller) to the JSON of `intent`. */
function recordIntent(target: JsonObject, intent: JsonObject): void {
  const metadata = isJsonObject(target.metadata) ? target.metadata : {};
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  annotations[LAST_APPLIED_ANNOTATION] = goJson(intent);
  metadata.annotations = annotations;
  target.metadata = metadata;
}

/**
 * `desired` ready to create in dynamic-apply mode: a copy carrying the last-applied annotation (the
 * JSON of desired itself, without that annotation), so the first update has a base to merge from.
 */
export function withLastApplied(desired: KubeObject): KubeObject {
  const object = withoutAnnotation(desired);
  recordIntent(object, intentOf(object));
  return object as unknown as KubeObject;
}

/** Sets `field` of `target` to a copy of `source`'s, or removes it when `source` has none. */
function revertField(target: JsonObject, source: JsonObject, field: string): void {
  const value = member(source, field);
  if (value === undefined) delete target[field];
  else target[field] = structuredClone(value);
}

/** Undoes any change the merge made to server-owned fields and to `.status` (see issue #766). */
function revertServerFields(merged: JsonObject, observed: JsonObject): void {
  const observedMeta = member(observed, 'metadata');
  const mergedMeta = member(merged, 'metadata');
  if (isJsonObject(observedMeta) && isJsonObject(mergedMeta)) {
    for (const field of SYSTEM_METADATA_FIELDS) revertField(mergedMeta, observedMeta, field);
  }
  revertField(merged, observed, 'status');
}

/** A copy without the last-applied annotation (and without `annotations` if that leaves it empty). */
export function withoutLastApplied(obj: KubeObject): KubeObject {
  const copy = structuredClone(obj);
  const annotations = copy.metadata.annotations;
  if (annotations) delete annotations[LAST_APPLIED_ANNOTATION];
  if (annotations && Object.keys(annotations).length === 0) delete copy.metadata.annotations;
  return copy;
}

/** The outcome of a dynamic-apply merge of one child. */
export interface DynamicApplyResult {
  /** The full object to PUT: observed with desired merged in, server fields as observed. */
  object: KubeObject;
  /** False when `object` deep-equals observed: no write is needed. */
  changed: boolean;
}

/**
 * The dynamic-apply update of an existing child: merges `desired` into `observed` with the base read
 * from observed's last-applied annotation, reverts `metadata` system fields and `.status` to observed
 * (a hook cannot set them on a child), and records desired in the annotation. Inputs are not modified.
 */
export function dynamicApplyMerge(observed: KubeObject, desired: KubeObject): DynamicApplyResult {
  const object = withoutAnnotation(desired);
  const merged = threeWayMerge(toJson(observed), lastAppliedOf(observed), object) as JsonObject;
  revertServerFields(merged, toJson(observed));
  recordIntent(merged, intentOf(object));
  return { object: merged as unknown as KubeObject, changed: !jsonEqual(merged, toJson(observed)) };
}
