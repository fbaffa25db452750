/**
 * Adding or removing a controller's finalizer on the object it syncs (a parent, a decorated target),
 * with a PUT of the cached object: a Conflict means the cache was behind, and the sync is retried.
 */
import type { KubeObject } from '../api/index.ts';
import type { ControllerLabels } from '../metrics/metrics.ts';
import type { Host } from './host.ts';

/** Who holds the finalizer. */
export interface FinalizerOwner {
  host: Host;
  labels: ControllerLabels;
  finalizer: string;
}

/** Adds or removes `owner`'s finalizer; returns the object as written. */
export async function setFinalizer(owner: FinalizerOwner, obj: KubeObject, present: boolean): Promise<KubeObject> {
  const others = (obj.metadata.finalizers ?? []).filter((f) => f !== owner.finalizer);
  const finalizers = present ? [...others, owner.finalizer] : others;
  const written = await owner.host.writer.replace({ ...obj, metadata: { ...obj.metadata, finalizers } });
  owner.host.metrics.applied(owner.labels, present ? 'add-finalizer' : 'remove-finalizer');
  return written;
}
