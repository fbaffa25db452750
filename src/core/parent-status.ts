/**
 * The status a CompositeController writes on its parent (docs/concepts.md, "Parent status"): the hook's
 * `status` replaces `.status` wholesale, stamped with the generation it was computed from, and is
 * written only when it differs from what is there.
 */
import { jsonEqual } from '../api/json-value.ts';
import type { Json } from '../api/object.ts';

/** A JSON object, as `.status` is. */
export type JsonObject = { [key: string]: Json };

/** `status.observedGeneration` of a status, when it is a generation (a positive integer). */
function observedGenerationOf(status: unknown): number | undefined {
  const value = typeof status === 'object' && status !== null ? (status as { observedGeneration?: unknown }).observedGeneration : undefined;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * The parent's new `.status`: a copy of the hook's `status` (`null` or absent ⇒ `{}`) with
 * `observedGeneration` set to the parent's `metadata.generation`, overriding any value the hook set, so
 * clients can tell which spec the status describes. A parent without a generation gets none stamped.
 *
 * Unless `childrenWritten` is `false` (a child write of this sync failed): the hook's status is still
 * written, but `observedGeneration` stays what `current` (the status now on the parent) says, or is
 * left out. The generation is not observed until its children are in place, so kstatus-style tools
 * (`kubectl wait`, Argo CD, Flux) do not call a half-applied parent converged. Metacontroller stamps
 * the generation regardless.
 */
export function desiredStatus(input: {
  hookStatus?: Readonly<JsonObject> | null | undefined;
  generation: number | undefined;
  current?: unknown;
  childrenWritten?: boolean | undefined;
}): JsonObject {
  const status: JsonObject = input.hookStatus ? structuredClone(input.hookStatus) : {};
  if (input.generation === undefined) return status;
  const observed = input.childrenWritten === false ? observedGenerationOf(input.current) : input.generation;
  if (observed === undefined) delete status.observedGeneration;
  else status.observedGeneration = observed;
  return status;
}

/**
 * Whether `desired` differs from the parent's current `.status`, i.e. whether a status write is needed.
 * A missing or `null` current status counts as `{}`, so that an empty status is not rewritten forever.
 */
export function statusChanged(current: unknown, desired: Readonly<JsonObject>): boolean {
  return !jsonEqual(current ?? {}, desired);
}

/**
 * Kubernetes' own API groups: the core group, the unqualified ones (`apps`, `batch`, `policy`) and
 * `*.k8s.io`. CRD groups must contain a dot and may not end in `.k8s.io` without approval. Their
 * objects' status belongs to Kubernetes' own controllers, so a hook saying nothing leaves it alone.
 */
export function isBuiltInGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group.endsWith('.k8s.io');
}
