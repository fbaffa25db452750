/** The reference the object writer takes for a child. */
import type { ChildRef } from '../core/index.ts';
import type { ObjectRef } from '../kube/index.ts';

/** The writer's reference to `child`: a cluster-scoped child (namespace `''`) has none. */
export function objectRefOf(child: ChildRef): ObjectRef {
  return { ...child, namespace: child.namespace || undefined };
}
