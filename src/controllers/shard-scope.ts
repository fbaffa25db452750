/**
 * What one run of the controllers does differently when replicas shard the parents (docs/sharding.md):
 * its parent, child and attachment caches hold only the buckets it holds (and objects not labelled yet),
 * it reconciles only the parents of those buckets, labelling each with its bucket first, and it puts
 * the bucket's label on every child and attachment it writes. Objects labelled with a bucket it holds
 * that is not theirs are cached too, for `shard-label-repair.ts` to correct. Without sharding each is
 * a no-op.
 */
import type { KubeObject } from '../api/index.ts';
import { bucketOf, SHARD_LABEL, shardLabelDecision, shardSelector, type ShardRole } from '../core/index.ts';
import type { InformerFilter, ResourceType } from '../kube/index.ts';
import type { Host } from './host.ts';

/** The buckets a run of the controllers holds, out of how many. */
export interface ShardScope {
  buckets: number;
  held: ReadonlySet<number>;
  /** The objects the controllers of this run take as parents (`shard-label-repair.ts`). */
  parents: ShardParents;
}

/**
 * Which objects the controllers of one run take as parents (or decorator targets), as each controller
 * registers what it selects. An object that is both a parent here and a child of another controller's
 * parent would need two labels; it keeps its parent's, and the child rule does not fight it.
 */
export interface ShardParents {
  /** Adds a controller's test; returns the removal. */
  register(takes: (obj: KubeObject) => boolean): () => void;
  takes(obj: KubeObject): boolean;
}

/** The scope of one run of the controllers holding `held` of `buckets`. */
export function shardScope(buckets: number, held: ReadonlySet<number>): ShardScope {
  const tests = new Set<(obj: KubeObject) => boolean>();
  return {
    buckets, held,
    parents: {
      register(takes) {
        tests.add(takes);
        return () => tests.delete(takes);
      },
      // Asked for every child event the repair sees: no copy of the set per call.
      takes(obj) {
        for (const takes of tests) if (takes(obj)) return true;
        return false;
      },
    },
  };
}

/**
 * What the informers of parents (and decorator targets) keep: the parents of the buckets held, labelled
 * or not yet (the API server filters by label; the cache, by the UID's bucket), and those labelled with
 * a bucket held here that is not theirs, which this replica must correct (`shard-label-repair.ts`).
 * `undefined`: everything.
 */
export function parentFilter(host: Host): InformerFilter | undefined {
  return shardFilter(host, 'parent');
}

/**
 * What the informers of children, attachments and revisions keep: those whose controller is a parent
 * of a bucket held, those without a controller, which any replica's parent may adopt, and those
 * labelled with a bucket held here that is not their controller's, which this replica must correct.
 */
export function childFilter(host: Host): InformerFilter | undefined {
  return shardFilter(host, 'child');
}

/** The informer filter of one role: the API server's label selector, then what the cache keeps; none without sharding. */
function shardFilter(host: Host, role: ShardRole): InformerFilter | undefined {
  const { shard } = host;
  if (!shard) return undefined;
  const labelSelector = shardSelector(shard.held, shard.buckets);
  return { id: `${role === 'parent' ? 'parents' : 'children'} in ${labelSelector ?? 'every bucket'}`, labelSelector, keep: (obj) => shardLabelDecision(obj, role, shard).keep };
}

/** The labels every child or attachment of `parent` gets: its bucket's, when sharded. */
export function shardLabels(host: Host, parent: KubeObject): Record<string, string> | undefined {
  const { shard } = host;
  const uid = parent.metadata.uid;
  return shard && uid ? { [SHARD_LABEL]: String(bucketOf(uid, shard.buckets)) } : undefined;
}

/** How many of `objects` are in the buckets this run holds (all of them without sharding). */
export function parentsInShard(host: Host, objects: Iterable<KubeObject | undefined>): number {
  let count = 0;
  for (const obj of objects) {
    const uid = obj?.metadata.uid;
    if (uid && (!host.shard || host.shard.held.has(bucketOf(uid, host.shard.buckets)))) count++;
  }
  return count;
}

/**
 * Whether this run reconciles `parent`: always without sharding; else when it holds the parent's bucket.
 * A parent of ours not labelled with its bucket is labelled first, so that the other replicas' caches
 * let go of it.
 */
export async function reconcilesParent(host: Host, type: ResourceType, parent: KubeObject, signal: AbortSignal): Promise<boolean> {
  const { shard } = host;
  if (!shard) return true;
  const { uid, labels } = parent.metadata;
  if (!uid) return false;
  const bucket = bucketOf(uid, shard.buckets);
  if (!shard.held.has(bucket)) return false;
  if (labels?.[SHARD_LABEL] !== String(bucket)) await writeShardLabel(host, type, parent, { value: String(bucket), signal });
  return true;
}

/**
 * Sets the shard label of `obj` (of `type`) to `value`. The label has a field manager of its own, which
 * owns nothing else. The write names the object's UID, so the API server refuses it for a namesake
 * (422, the UID is immutable) and for an object deleted since (409), rather than creating one.
 * Aborting `signal` (its writer stopping) gives the write up, so a stop never waits for it.
 */
export async function writeShardLabel(host: Host, type: Pick<ResourceType, 'apiVersion' | 'kind'>, obj: KubeObject, label: { value: string; signal: AbortSignal }): Promise<void> {
  const { value, signal } = label;
  const { name = '', namespace, uid } = obj.metadata;
  // Without its UID the write could land on a namesake, or create the object.
  if (uid === undefined) throw new Error(`${type.kind} ${name} has no UID, so its shard label is not written`);
  await host.writer.apply(
    { apiVersion: type.apiVersion, kind: type.kind, metadata: { name, ...(namespace === undefined ? {} : { namespace }), uid, labels: { [SHARD_LABEL]: value } } },
    { fieldManager: `${host.settings.fieldManager}-shard`, signal },
  );
}
