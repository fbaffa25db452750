/**
 * Queue keys of a DecoratorController. One engine decorates several types, so a key names the type as
 * well as the object: `<apiVersion>/<resource> <namespace>/<name>` (a resource key has no space).
 */
import { resourceTypeKey, objectKey, type KubeObject } from '../../api/index.ts';
import type { ReadonlyObjectStore, ResourceType } from '../../kube/index.ts';

/** The queue key of `target`, an object of `type`. */
export function targetKey(type: ResourceType, target: KubeObject): string {
  return `${resourceTypeKey(type)} ${objectKey(target.metadata.namespace, target.metadata.name ?? '')}`;
}

/** The resource key and the store key a queue key is made of. */
function splitTargetKey(key: string): { typeKey: string; storeKey: string } {
  const space = key.indexOf(' ');
  return { typeKey: key.slice(0, space), storeKey: key.slice(space + 1) };
}

/** The target type a queue key names among `targets`, and its cached object (either may be gone). */
export function targetAt<T extends { type: ResourceType; store: ReadonlyObjectStore }>(targets: readonly T[], key: string): { target?: T | undefined; cached?: KubeObject | undefined } {
  const { typeKey, storeKey } = splitTargetKey(key);
  const target = targets.find((t) => resourceTypeKey(t.type) === typeKey);
  return { target, cached: target?.store.get(storeKey) };
}
