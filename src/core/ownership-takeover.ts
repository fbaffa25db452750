/**
 * Taking over field ownership of a child from Metacontroller (or from loom's own dynamic apply) before
 * loom's first server-side apply to it, the way client-go's `csaupgrade` moves an object from
 * client-side to server-side apply. Without it, the `Update` entries of a dynamic apply and the `Apply`
 * entry of Metacontroller's server-side apply keep co-owning every field next to loom's `Apply` entry,
 * so a field loom's desired state no longer has is never removed: the API server removes a field only
 * when no manager owns it any more.
 *
 * The takeover is one JSON patch: a `test` of the observed resourceVersion (so a write in between is
 * not overwritten; the sync fails and retries), a `replace` of `managedFields` in which loom's `Apply`
 * entry owns the union of what those entries owned (they are removed), and the removal of the
 * dynamic-apply last-applied annotation (and of its field from the set), which no apply would remove.
 */
import type { KubeObject } from '../api/object.ts';
import { LAST_APPLIED_ANNOTATION, METACONTROLLER_FIELD_MANAGER } from '../api/well-known.ts';

/** One entry of `metadata.managedFields`. */
interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldSet;
  subresource?: string;
}

/** A `FieldsV1` tree: `f:`/`k:`/`v:`/`i:` keys down to `{}` leaves (and `.` for the node itself). */
interface FieldSet {
  [key: string]: FieldSet;
}

/** A JSON patch (RFC 6902) operation. */
export type JsonPatchOperation =
  | { op: 'test' | 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/** The path of the last-applied annotation in a JSON patch. */
export const LAST_APPLIED_PATH = `/metadata/annotations/${LAST_APPLIED_ANNOTATION.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/**
 * Entries whose fields loom takes over: Metacontroller's (its dynamic apply records `Update`, its
 * server-side apply `Apply`, both under the name `metacontroller`) and loom's own `Update` entries (a
 * child loom wrote with dynamic apply). Subresource entries (status) are not about the object's fields.
 */
function isTakenOver(entry: ManagedFieldsEntry, fieldManager: string): boolean {
  if (entry.subresource) return false;
  if (entry.operation === 'Update') return entry.manager === METACONTROLLER_FIELD_MANAGER || entry.manager === fieldManager;
  return entry.operation === 'Apply' && entry.manager === METACONTROLLER_FIELD_MANAGER && fieldManager !== METACONTROLLER_FIELD_MANAGER;
}

function isOwnApply(entry: ManagedFieldsEntry, fieldManager: string): boolean {
  return !entry.subresource && entry.operation === 'Apply' && entry.manager === fieldManager;
}

/** The union of field sets. */
function union(sets: readonly FieldSet[]): FieldSet {
  const result: FieldSet = {};
  for (const set of sets) {
    for (const [key, child] of Object.entries(set)) result[key] = union([result[key] ?? {}, child]);
  }
  return result;
}

/** `set` without the last-applied annotation's field (and without `f:annotations` if that empties it). */
function withoutLastAppliedField(set: FieldSet): FieldSet {
  const annotations = set['f:metadata']?.['f:annotations'];
  if (!annotations || !(`f:${LAST_APPLIED_ANNOTATION}` in annotations)) return set;
  const { [`f:${LAST_APPLIED_ANNOTATION}`]: _annotation, ...rest } = annotations;
  const { 'f:annotations': _annotations, ...metadata } = set['f:metadata']!;
  const { 'f:metadata': _metadata, ...others } = set;
  const remaining = Object.keys(rest).some((k) => k !== '.') ? { ...metadata, 'f:annotations': rest } : metadata;
  return Object.keys(remaining).length > 0 ? { ...others, 'f:metadata': remaining } : others;
}

/** The latest of the entries' times (RFC 3339 strings in UTC sort as text). */
function latestTime(entries: readonly ManagedFieldsEntry[]): string | undefined {
  return entries.map((e) => e.time).filter((t): t is string => t !== undefined).sort().at(-1);
}

/**
 * The JSON patch that hands `observed`'s fields to `fieldManager`'s `Apply` entry before loom applies
 * it, or `undefined` when there is nothing to take over (no foreign entry, no annotation): then nothing
 * is written.
 */
export function ownershipTakeover(observed: KubeObject, fieldManager: string): JsonPatchOperation[] | undefined {
  const entries = (observed.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  const takenOver = entries.filter((e) => isTakenOver(e, fieldManager));
  const hasAnnotation = Object.hasOwn(observed.metadata.annotations ?? {}, LAST_APPLIED_ANNOTATION);
  if (takenOver.length === 0) return hasAnnotation ? [{ op: 'remove', path: LAST_APPLIED_PATH }] : undefined;
  const own = entries.filter((e) => isOwnApply(e, fieldManager));
  const fields = withoutLastAppliedField(union([...own, ...takenOver].map((e) => e.fieldsV1 ?? {})));
  const time = latestTime([...own, ...takenOver]);
  const apply: ManagedFieldsEntry = {
    manager: fieldManager, operation: 'Apply', apiVersion: observed.apiVersion, ...(time ? { time } : {}), fieldsType: 'FieldsV1', fieldsV1: fields,
  };
  const kept = entries.filter((e) => !takenOver.includes(e) && !own.includes(e));
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: observed.metadata.resourceVersion },
    { op: 'replace', path: '/metadata/managedFields', value: [...kept, apply] },
    ...(hasAnnotation ? [{ op: 'remove' as const, path: LAST_APPLIED_PATH }] : []),
  ];
}
