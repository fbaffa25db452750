/**
 * Releasing a child by its `deletionPolicy` (docs/ordering-and-readiness.md, "Per-child lifecycle
 * policies"): the parent's owner references go, and the child is marked with the parent's UID so that
 * this parent's claim never adopts it again, even though it still matches the parent's selector. Only
 * the one UID is kept: a later release by another parent replaces it, and removing the annotation by
 * hand lets the parent adopt the object again. Pure.
 */
import type { KubeObject } from '../api/object.ts';

/** The UID of the parent that released the object by its `Orphan` or `Retain` policy. */
export const RELEASED_FROM_ANNOTATION = 'loom.dev/released-from';

/** Whether `child` was released by the parent with UID `parentUid` (which must then never adopt it). */
export function isReleasedFrom(child: KubeObject, parentUid: string | undefined): boolean {
  return parentUid !== undefined && child.metadata.annotations?.[RELEASED_FROM_ANNOTATION] === parentUid;
}

/**
 * `child` without owner references to the parent of UID `parentUid`, marked as released by it; or
 * `undefined` when it has no such reference (someone else released it: nothing to write). Meant for a
 * fresh or cached read of the child, written with its resourceVersion.
 */
export function policyReleasedChild(child: KubeObject, parentUid: string): KubeObject | undefined {
  const refs = child.metadata.ownerReferences ?? [];
  const kept = refs.filter((r) => r.uid !== parentUid);
  if (kept.length === refs.length) return undefined;
  const annotations = { ...child.metadata.annotations, [RELEASED_FROM_ANNOTATION]: parentUid };
  return { ...child, metadata: { ...child.metadata, ownerReferences: kept, annotations } };
}

/** `child` without the released marker: what a parent that takes a released child back writes (`taken-name.ts`). */
export function unmarkedChild(child: KubeObject): KubeObject {
  const { [RELEASED_FROM_ANNOTATION]: _released, ...annotations } = child.metadata.annotations ?? {};
  return { ...child, metadata: { ...child.metadata, annotations } };
}
