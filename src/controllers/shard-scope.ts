/**
 * What one run of the controllers does differently when replicas shard the parents (docs/sharding.md):
 * its parent, child and attachment caches hold only the buckets it holds (and objects not labelled yet),
 * it reconciles only the parents of those buckets, labelling each with its bucket first, and it puts
 * the bucket's label on every child and attachment it writes. Without sharding each is a no-op.
 */
import { controllerRefOf, type KubeObject } from '../api/index.ts';
import { bucketOf, SHARD_LABEL, shardSelector } from '../core/index.ts';
import type { InformerFilter, ResourceType } from '../kube/index.ts';
import type { Host } from './host.ts';

/** The buckets a run of the controllers holds, out of how many. */
export interface ShardScope {
  buckets: number;
  held: ReadonlySet<number>;
}

/**
 * What the informers of parents (and decorator targets) keep: the parents of the buckets held, labelled
 * or not yet (the API server filters by label; the cache, by the UID's bucket). `undefined`: everything.
 */
export function parentFilter(host: Host): InformerFilter | undefined {
  return shardFilter(host, 'parents', (shard, obj) => inHeldBucket(shard, obj.metadata.uid));
}

/**
 * What the informers of children, attachments and revisions keep: those whose controller is a parent
 * of a bucket held, and those without a controller, which any replica's parent may adopt.
 */
export function childFilter(host: Host): InformerFilter | undefined {
  return shardFilter(host, 'children', (shard, obj) => {
    const owner = controllerRefOf(obj);
    return owner === undefined || inHeldBucket(shard, owner.uid);
  });
}

/** The informer filter of one role: the API server's label selector, then `keep`; none without sharding. */
function shardFilter(host: Host, role: string, keep: (shard: ShardScope, obj: KubeObject) => boolean): InformerFilter | undefined {
  const { shard } = host;
  if (!shard) return undefined;
  const labelSelector = shardSelector(shard.held, shard.buckets);
  return { id: `${role} in ${labelSelector ?? 'every bucket'}`, labelSelector, keep: (obj) => keep(shard, obj) };
}

function inHeldBucket(shard: ShardScope, uid: string | undefined): boolean {
  return uid !== undefined && shard.held.has(bucketOf(uid, shard.buckets));
}

/** The labels every child or attachment of `parent` gets: its bucket's, when sharded. */
export function shardLabels(host: Host, parent: KubeObject): Record<string, string> | undefined {
  const { shard } = host;
  const uid = parent.metadata.uid;
  return shard && uid ? { [SHARD_LABEL]: String(bucketOf(uid, shard.buckets)) } : undefined;
}

/** The name, and namespace if any, of `obj`. */
function identityOf(obj: KubeObject): { name: string; namespace?: string } {
  const { name = '', namespace } = obj.metadata;
  return namespace === undefined ? { name } : { name, namespace };
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
 * let go of it. The label has a field manager of its own, which owns nothing else, and the write names
 * the parent's UID, so it cannot land on a namesake.
 */
export async function reconcilesParent(host: Host, type: ResourceType, parent: KubeObject): Promise<boolean> {
  const { shard } = host;
  if (!shard) return true;
  const { uid, labels } = parent.metadata;
  if (!uid) return false;
  const bucket = bucketOf(uid, shard.buckets);
  if (!shard.held.has(bucket)) return false;
  if (labels?.[SHARD_LABEL] !== String(bucket)) {
    await host.writer.apply(
      { apiVersion: type.apiVersion, kind: type.kind, metadata: { ...identityOf(parent), uid, labels: { [SHARD_LABEL]: String(bucket) } } },
      { fieldManager: `${host.settings.fieldManager}-shard` },
    );
  }
  return true;
}
