/**
 * What loom sends when it server-side applies a child: the hook's desired object without the fields a
 * client must not claim (docs/concepts.md, "What loom removes from desired children"). Applying `status`
 * or server-set metadata would make loom their field manager, or be rejected; the dynamic-apply
 * annotation has no meaning under SSA.
 */
import type { KubeObject } from '../api/object.ts';
import { LAST_APPLIED_ANNOTATION } from '../api/well-known.ts';

const SERVER_SET = ['selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'managedFields'] as const;

/** A copy of `desired` fit for server-side apply. */
export function sanitizeForApply(desired: KubeObject): KubeObject {
  const { status: _status, ...rest } = desired;
  const metadata = { ...desired.metadata };
  for (const field of SERVER_SET) delete metadata[field];
  if (metadata.annotations && LAST_APPLIED_ANNOTATION in metadata.annotations) {
    const { [LAST_APPLIED_ANNOTATION]: _lastApplied, ...annotations } = metadata.annotations;
    metadata.annotations = annotations;
  }
  return { ...rest, metadata };
}
