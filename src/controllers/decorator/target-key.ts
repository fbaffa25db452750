/**
 * Queue keys of a DecoratorController. One controller decorates several types, so a key names the type as
 * well as the object; its identity in the queue is `<apiVersion>/<resource> <namespace>/<name>`.
 */
import { objectKey, resourceTypeKey, type KubeObject } from '../../api/index.ts';
import type { ReadonlyObjectStore, ResourceType } from '../../kube/index.ts';

/** One target to sync: its type, and its key in that type's store (`namespace/name`). */
export interface TargetKey {
  type: ResourceType;
  object: string;
}

/** The queue key of `target`, an object of `type`. */
export function targetKey(type: ResourceType, target: KubeObject): TargetKey {
  return { type, object: objectKey(target.metadata.namespace, target.metadata.name ?? '') };
}

/** What tells two target keys apart (the work queue's `keyOf`). */
export function targetKeyId(key: TargetKey): string {
  return `${resourceTypeKey(key.type)} ${key.object}`;
}

/** The target type a key names among `targets`, and its cached object (either may be gone). */
export function targetAt<T extends { type: ResourceType; store: ReadonlyObjectStore }>(targets: readonly T[], key: TargetKey): { target?: T | undefined; cached?: KubeObject | undefined } {
  const typeKey = resourceTypeKey(key.type);
  const target = targets.find((t) => resourceTypeKey(t.type) === typeKey);
  return { target, cached: target?.store.get(key.object) };
}
