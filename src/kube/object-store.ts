/**
 * The cache of one resource type, indexed the ways loom asks: by key, by namespace, by the UID of the
 * controller that owns an object, and "orphans" (no controller). Claiming children then looks at the
 * parent's children and the orphans only, never at every object of the type.
 */
import { controllerRefOf, objectKey, type KubeObject } from '../api/object.ts';

/** What readers may do with a store. */
export interface ReadonlyObjectStore {
  get(key: string): KubeObject | undefined;
  list(): KubeObject[];
  byNamespace(namespace: string): KubeObject[];
  /** Objects whose controller reference has this UID. */
  byControllerUid(uid: string): KubeObject[];
  /** Objects without a controller reference, in `namespace` or (when omitted) everywhere. */
  orphans(namespace?: string): KubeObject[];
  readonly size: number;
}

/** A store that the informer writes. */
export interface ObjectStore extends ReadonlyObjectStore {
  /** Inserts or replaces; returns the previous version. */
  upsert(obj: KubeObject): KubeObject | undefined;
  /** Removes; returns what was stored. */
  remove(key: string): KubeObject | undefined;
}

const CLUSTER = '';

/** The store key of an object: `namespace/name`, or `name` when cluster-scoped. */
export function storeKey(obj: KubeObject): string {
  return objectKey(obj.metadata.namespace, obj.metadata.name ?? '');
}

/**
 * The keys of one index bucket: an exact-size array while small (most owners have a few children, and
 * a Set costs ten times the memory of a 3-key array), a Set once removal from it would be slow.
 */
type Group = readonly string[] | Set<string>;

const SMALL_GROUP = 32;

function addTo(index: Map<string, Group>, bucket: string, key: string): void {
  const group = index.get(bucket);
  if (group instanceof Set) group.add(key);
  else if (!group) index.set(bucket, [key]);
  else if (!group.includes(key)) index.set(bucket, group.length < SMALL_GROUP ? [...group, key] : new Set([...group, key]));
}

function removeFrom(index: Map<string, Group>, bucket: string, key: string): void {
  const group = index.get(bucket);
  if (group instanceof Set) {
    group.delete(key);
    if (group.size === 0) index.delete(bucket);
  } else if (group?.includes(key)) {
    if (group.length === 1) index.delete(bucket);
    else index.set(bucket, group.filter((k) => k !== key));
  }
}

/** Creates an empty store. */
export function createObjectStore(): ObjectStore {
  const objects = new Map<string, KubeObject>();
  const namespaces = new Map<string, Group>();
  const owners = new Map<string, Group>();
  const orphansByNamespace = new Map<string, Group>();

  const index = (key: string, obj: KubeObject, add: boolean): void => {
    const change = add ? addTo : removeFrom;
    const namespace = obj.metadata.namespace ?? CLUSTER;
    change(namespaces, namespace, key);
    const owner = controllerRefOf(obj)?.uid;
    if (owner) change(owners, owner, key);
    else change(orphansByNamespace, namespace, key);
  };
  const resolve = (keys: Iterable<string> | undefined): KubeObject[] =>
    [...(keys ?? [])].map((key) => objects.get(key)!);

  return {
    get: (key) => objects.get(key),
    list: () => [...objects.values()],
    byNamespace: (namespace) => resolve(namespaces.get(namespace)),
    byControllerUid: (uid) => resolve(owners.get(uid)),
    orphans: (namespace) => namespace === undefined
      ? [...orphansByNamespace.values()].flatMap((keys) => resolve(keys))
      : resolve(orphansByNamespace.get(namespace)),
    get size() {
      return objects.size;
    },
    upsert(obj) {
      const key = storeKey(obj);
      const previous = objects.get(key);
      if (previous) index(key, previous, false);
      objects.set(key, obj);
      index(key, obj, true);
      return previous;
    },
    remove(key) {
      const previous = objects.get(key);
      if (!previous) return undefined;
      index(key, previous, false);
      objects.delete(key);
      return previous;
    },
  };
}
