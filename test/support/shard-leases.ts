/**
 * The shard Leases of a sharded test deployment, read from the API server: who holds each bucket, and
 * a wait until the buckets are split as a test expects.
 */
import type { RestClient } from '../../src/kube/index.ts';
import { eventually } from './cluster.ts';

/**
 * The member Lease of a replica a test starts inside its own process: generous, a guard and not a
 * target. A replica gives up when it could not renew for two thirds of it, and with 3 s, and even
 * 10 s, every replica of the sharding test gave up on a loaded machine (thousands of syncs in the
 * test's process beside an API server short of CPU), leaving the test's split. Its length costs a
 * test nothing, as a replica that stops lets its Lease go; only a replica that is killed holds its
 * buckets until its Lease expires, and the test that kills one gives that one a short Lease.
 */
export const LIVE_MEMBER_LEASE_MS = 60_000;

/** Where a test's shard Leases are. */
export interface ShardGroup {
  client: RestClient;
  namespace: string;
  group: string;
  buckets: number;
}

/** The holder of each bucket whose Lease names one. */
export async function bucketHolders({ client, namespace, group }: ShardGroup): Promise<Map<number, string>> {
  const list = await client.request<{ items: { metadata: { name: string }; spec?: { holderIdentity?: string } }[] }>({
    method: 'GET', path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`, query: { labelSelector: `loom.dev/shard-group=${group}` },
  });
  const byBucket = new Map<number, string>();
  for (const lease of list.items) {
    const bucket = /-shard-(\d+)$/.exec(lease.metadata.name)?.[1];
    if (bucket !== undefined && lease.spec?.holderIdentity) byBucket.set(Number(bucket), lease.spec.holderIdentity);
  }
  return byBucket;
}

/** Resolves with the holders once every bucket is held and `split` accepts how many each holder has. */
export function whenSplit(shards: ShardGroup, split: (counts: ReadonlyMap<string, number>) => boolean, what: string): Promise<Map<number, string>> {
  return eventually(async () => {
    const byBucket = await bucketHolders(shards);
    if (byBucket.size < shards.buckets) return undefined;
    const counts = new Map<string, number>();
    for (const holder of byBucket.values()) counts.set(holder, (counts.get(holder) ?? 0) + 1);
    return split(counts) ? byBucket : undefined;
  }, `the buckets to be split ${what}`, 40_000);
}
