/**
 * Taking over field ownership of a child from Metacontroller (or from loom's own dynamic apply) before
 * loom's first server-side apply to it (or a Recreate's dry run), the way client-go's `csaupgrade` moves an object from
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
 * Whether loom's `Apply` entry takes over the fields of `entry`. The rule, entry by entry (entries of a
 * subresource, such as status, are about no field loom applies and are never touched):
 *
 * | manager / operation | taken over | why |
 * |---|---|---|
 * | `metacontroller` / `Update` | yes | Metacontroller's dynamic apply (its creates and updates name no manager, so the API server records the first word of its client's user agent, the binary's name), and the update its server-side apply makes to drop the last-applied annotation |
 * | `metacontroller` / `Apply` | yes, unless loom's manager is `metacontroller` too | Metacontroller's server-side apply under its default manager; under the same name it already is loom's entry |
 * | loom's manager / `Update` | yes | loom's own dynamic apply (a switch of `--apply-strategy`) and its adoption writes |
 * | loom's manager / `Apply` | kept | loom's entry: the others are merged into it |
 * | any other | no | another writer's fields stay theirs |
 *
 * A Metacontroller that ran its server-side apply under another `--apply-strategy-ssa-field-manager`
 * is recognised when loom runs with that same flag value: its `Apply` entry then is loom's own.
 */
function isTakenOver(entry: ManagedFieldsEntry, fieldManager: string): boolean {
  if (entry.subresource) return false;
  if (entry.operation === 'Update') return entry.manager === METACONTROLLER_FIELD_MANAGER || entry.manager === fieldManager;
  return entry.operation === 'Apply' && entry.manager === METACONTROLLER_FIELD_MANAGER && fieldManager !== METACONTROLLER_FIELD_MANAGER;
}

function isOwnApply(entry: ManagedFieldsEntry, fieldManager: string): boolean {
  return !entry.subresource && entry.operation === 'Apply' && entry.manager === fieldManager;
}

/**
 * `obj` as a cache should keep it: without `managedFields`, unless one of its entries is one loom would
 * take over. Those entries are often the largest part of a small object and loom reads them for
 * nothing else (client-go's informers offer a transform for exactly this); the few objects still
 * co-owned (after Metacontroller, or a switch of apply strategy) keep the full list the takeover needs.
 */
export function withoutManagedFieldsUnlessTakenOver(obj: KubeObject, fieldManager: string): KubeObject {
  const entries = obj.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  if (entries === undefined || entries.some((entry) => isTakenOver(entry, fieldManager))) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
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
  if (takenOver.length === 0 && !hasAnnotation) return undefined;
  return [
    // Fails with 422 when anyone wrote since the child was observed: the sync is retried on fresh data.
    { op: 'test', path: '/metadata/resourceVersion', value: observed.metadata.resourceVersion },
    ...(takenOver.length > 0 ? [{ op: 'replace' as const, path: '/metadata/managedFields', value: mergedEntries(entries, takenOver, observed.apiVersion, fieldManager) }] : []),
    ...(hasAnnotation ? [{ op: 'remove' as const, path: LAST_APPLIED_PATH }] : []),
  ];
}

/** `entries` with `takenOver` and loom's own `Apply` entry replaced by one `Apply` entry owning all their fields. */
function mergedEntries(entries: readonly ManagedFieldsEntry[], takenOver: readonly ManagedFieldsEntry[], apiVersion: string, fieldManager: string): ManagedFieldsEntry[] {
  const own = entries.filter((e) => isOwnApply(e, fieldManager));
  const merged = [...own, ...takenOver];
  const time = latestTime(merged);
  const apply: ManagedFieldsEntry = {
    manager: fieldManager, operation: 'Apply', apiVersion, ...(time ? { time } : {}), fieldsType: 'FieldsV1',
    fieldsV1: withoutLastAppliedField(union(merged.map((e) => e.fieldsV1 ?? {}))),
  };
  return [...entries.filter((e) => !merged.includes(e)), apply];
}
