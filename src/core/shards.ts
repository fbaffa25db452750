/**
 * Active-active sharding of parents across `loom run` replicas (docs/sharding.md). The parents are
 * split into a fixed number of buckets by their UID; each live replica holds a fair share of the
 * buckets, one Lease per bucket, and reconciles only the parents of the buckets it holds. These are
 * the pure decisions: which bucket a parent is in, how many buckets a replica should hold, which to
 * take or give back, which objects its caches keep, and which labels it must correct.
 */
import { controllerRefOf, type KubeObject } from '../api/object.ts';

/** The label that puts a parent, and every child loom writes for it, in its bucket's watches. */
export const SHARD_LABEL = 'loom.dev/shard';

/**
 * The bucket of the parent with this UID: 32-bit FNV-1a of the UID, modulo `buckets`. The same in
 * every replica and every version of loom, since it decides who may write a parent's children.
 */
export function bucketOf(uid: string, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) {
    hash ^= uid.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % buckets;
}

/**
 * How many buckets `identity` should hold when `members` are alive: an even split, the remainder going
 * to the members first in identity order, so that every replica computes the same shares.
 */
export function fairShare(members: readonly string[], identity: string, buckets: number): number {
  const sorted = [...new Set([...members, identity])].sort();
  const base = Math.floor(buckets / sorted.length);
  return base + (sorted.indexOf(identity) < buckets % sorted.length ? 1 : 0);
}

/** One bucket's Lease as a replica sees it. */
export interface BucketHolder {
  bucket: number;
  /** Who holds it, when someone does and has renewed it within its duration. */
  holder: string | undefined;
}

/** What a replica should do about its buckets this round. */
export interface ShardMoves {
  /** Buckets to give back: drain their parents first, then release the Leases. */
  release: number[];
  /** Free buckets to take (when their Lease is still free at the write). */
  acquire: number[];
}

/** What {@link planShardMoves} decides from. */
export interface ShardView {
  identity: string;
  /** The replicas alive now, this one included or not. */
  members: readonly string[];
  buckets: number;
  /** Every bucket's holder; a bucket missing here has none. */
  holders: readonly BucketHolder[];
  /** The buckets this replica holds. */
  held: ReadonlySet<number>;
}

/**
 * Gives back the highest buckets held beyond the fair share, or takes the lowest free buckets up to
 * it. A bucket held by another replica is never taken: a replica over its share gives buckets back
 * when it sees the new members, and they are taken once free, so no bucket has two holders.
 */
export function planShardMoves(view: ShardView): ShardMoves {
  const share = fairShare(view.members, view.identity, view.buckets);
  const held = [...view.held].sort((a, b) => a - b);
  if (held.length > share) return { release: held.slice(share), acquire: [] };
  const taken = new Set(view.holders.filter((h) => h.holder !== undefined).map((h) => h.bucket));
  const free: number[] = [];
  for (let bucket = 0; bucket < view.buckets && free.length < share - held.length; bucket++) {
    if (!taken.has(bucket) && !view.held.has(bucket)) free.push(bucket);
  }
  return { release: [], acquire: free };
}

/**
 * The label selector of what a replica holding `held` caches: every object not labelled with a bucket
 * held by someone else. Objects not labelled yet (a new parent, an orphan) are in every replica's
 * caches until their bucket's holder labels them; `undefined` when the replica holds every bucket.
 */
export function shardSelector(held: ReadonlySet<number>, buckets: number): string | undefined {
  const others: number[] = [];
  for (let bucket = 0; bucket < buckets; bucket++) if (!held.has(bucket)) others.push(bucket);
  return others.length === 0 ? undefined : `${SHARD_LABEL} notin (${others.join(',')})`;
}

/**
 * What an object is to the informer that delivers it: a parent (or decorator target), whose bucket is
 * its own UID's, or something a parent may own (a child, attachment or revision), whose bucket is its
 * controller's.
 */
export type ShardRole = 'parent' | 'child';

/**
 * The bucket whose label `obj` must carry in `role`: a parent's own, which decides who reconciles it; a
 * child's controller's, so that it is watched where its parent is reconciled. `undefined` when it has
 * no such UID: an orphan, which any replica's parent may adopt.
 */
export function trueBucketOf(obj: KubeObject, role: ShardRole, buckets: number): number | undefined {
  const uid = role === 'parent' ? obj.metadata.uid : controllerRefOf(obj)?.uid;
  return uid === undefined ? undefined : bucketOf(uid, buckets);
}

/**
 * The bucket the shard label of `obj` names, when it names one exactly as loom writes it (`"0"` to
 * `"<buckets - 1>"`). Any other value (`"05"`, `"x"`, a number out of range) is in no replica's `notin`
 * list, so every replica's watch lets it through, like an absent label.
 */
export function labelledBucketOf(obj: KubeObject, buckets: number): number | undefined {
  const value = obj.metadata.labels?.[SHARD_LABEL];
  if (value === undefined || !/^(0|[1-9][0-9]*)$/.test(value)) return undefined;
  const bucket = Number(value);
  return bucket < buckets ? bucket : undefined;
}

/** What a replica does with an object its shard-selected watch delivers. */
export interface ShardLabelDecision {
  /** Whether its cache keeps the object. */
  keep: boolean;
  /** The label value it must write on the object: the true bucket, when the label names another bucket it holds. */
  relabel: string | undefined;
}

/**
 * What the replica holding `scope.held` does with `obj` (docs/sharding.md, "Labels cannot hide
 * objects"). It keeps what is its own by UID (a parent of a bucket it holds, a child of such a parent)
 * and every orphan. An object whose label names a bucket it holds but whose true bucket is another is
 * kept too, to be corrected: the selectors send that object to this replica alone, so if this replica
 * did not correct it, no replica would ever see it. Once the label names the true bucket, the holder of
 * that bucket receives it, and keeps it by UID.
 */
export function shardLabelDecision(obj: KubeObject, role: ShardRole, scope: { buckets: number; held: ReadonlySet<number> }): ShardLabelDecision {
  const truth = trueBucketOf(obj, role, scope.buckets);
  if (truth === undefined) return { keep: role === 'child', relabel: undefined };
  const named = labelledBucketOf(obj, scope.buckets);
  const relabel = named !== undefined && named !== truth && scope.held.has(named) ? String(truth) : undefined;
  return { keep: scope.held.has(truth) || relabel !== undefined, relabel };
}
