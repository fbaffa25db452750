/**
 * Queue keys of a DecoratorController. One engine decorates several types, so a key names the type as
 * well as the object: `<apiVersion>/<resource> <namespace>/<name>` (a resource key has no space).
 */
import { objectKey, type KubeObject } from '../../api/index.ts';
import { typeKeyOf, type ResourceType } from '../../kube/index.ts';

/** The queue key of `target`, an object of `type`. */
export function targetKey(type: ResourceType, target: KubeObject): string {
  return `${typeKeyOf(type)} ${objectKey(target.metadata.namespace, target.metadata.name ?? '')}`;
}

/** The resource key and the store key a queue key is made of. */
export function splitTargetKey(key: string): { typeKey: string; storeKey: string } {
  const space = key.indexOf(' ');
  return { typeKey: key.slice(0, space), storeKey: key.slice(space + 1) };
}
