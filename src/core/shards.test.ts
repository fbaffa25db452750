import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { bucketOf, fairShare, labelledBucketOf, planShardMoves, SHARD_LABEL, shardLabelDecision, shardSelector, type ShardView } from './shards.ts';

describe('bucketOf', () => {
  it('is 32-bit FNV-1a of the UID modulo the bucket count', () => {
    // FNV-1a's published test vectors: "" → 0x811c9dc5, "a" → 0xe40c292c, "foobar" → 0xbf9cf968.
    expect(bucketOf('', 2 ** 32 - 1)).toBe(0x811c9dc5);
    expect(bucketOf('a', 2 ** 32 - 1)).toBe(0xe40c292c);
    expect(bucketOf('foobar', 2 ** 32 - 1)).toBe(0xbf9cf968);
    expect(bucketOf('foobar', 16)).toBe(0xbf9cf968 % 16);
  });

  it('spreads UIDs about evenly', () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 16_000; i++) counts[bucketOf(`0b6c7f4e-${i.toString(16).padStart(4, '0')}-4d2a-9c1e-5f1a2b3c4d5e`, 16)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(800);
    expect(Math.max(...counts)).toBeLessThan(1200);
  });
});

describe('fairShare', () => {
  it('splits the buckets evenly, the remainder to the first members in identity order', () => {
    const members = ['c', 'a', 'b'];
    expect(members.map((m) => fairShare(members, m, 16))).toEqual([5, 6, 5]);
    expect(['a', 'b', 'c'].reduce((sum, m) => sum + fairShare(members, m, 16), 0)).toBe(16);
  });

  it('counts the asking replica even when it is not among the members yet', () => {
    expect(fairShare([], 'a', 16)).toBe(16);
    expect(fairShare(['b'], 'a', 16)).toBe(8);
  });

  it('gives no bucket to members beyond the bucket count', () => {
    expect(['a', 'b', 'c'].map((m) => fairShare(['a', 'b', 'c'], m, 2))).toEqual([1, 1, 0]);
  });
});

describe('planShardMoves', () => {
  const view = (over: Partial<ShardView>): ShardView => ({ identity: 'a', members: ['a'], buckets: 4, holders: [], held: new Set(), ...over });

  it('takes every free bucket when alone', () => {
    expect(planShardMoves(view({}))).toEqual({ release: [], acquire: [0, 1, 2, 3] });
  });

  it('gives back its highest buckets when a member joins', () => {
    const holders = [0, 1, 2, 3].map((bucket) => ({ bucket, holder: 'a' }));
    expect(planShardMoves(view({ members: ['a', 'b'], holders, held: new Set([0, 1, 2, 3]) }))).toEqual({ release: [2, 3], acquire: [] });
  });

  it('never takes a bucket another replica holds, even one beyond that replica\'s share', () => {
    const holders = [0, 1, 2, 3].map((bucket) => ({ bucket, holder: 'a' }));
    expect(planShardMoves(view({ identity: 'b', members: ['a', 'b'], holders }))).toEqual({ release: [], acquire: [] });
    const afterRelease = [{ bucket: 0, holder: 'a' }, { bucket: 1, holder: 'a' }];
    expect(planShardMoves(view({ identity: 'b', members: ['a', 'b'], holders: afterRelease }))).toEqual({ release: [], acquire: [2, 3] });
  });

  it('takes a dead member\'s buckets once their Leases have expired (then they have no holder)', () => {
    const holders = [{ bucket: 0, holder: 'a' }, { bucket: 1, holder: 'a' }, { bucket: 2, holder: undefined }, { bucket: 3, holder: undefined }];
    expect(planShardMoves(view({ members: ['a'], holders, held: new Set([0, 1]) }))).toEqual({ release: [], acquire: [2, 3] });
  });

  it('does nothing at its fair share', () => {
    const holders = [0, 1, 2, 3].map((bucket) => ({ bucket, holder: bucket < 2 ? 'a' : 'b' }));
    expect(planShardMoves(view({ members: ['a', 'b'], holders, held: new Set([0, 1]) }))).toEqual({ release: [], acquire: [] });
  });
});

describe('shardSelector', () => {
  it('keeps out the objects of buckets held elsewhere, and keeps unlabelled ones', () => {
    expect(shardSelector(new Set([1, 3]), 5)).toBe('loom.dev/shard notin (0,2,4)');
  });

  it('selects everything when every bucket is held', () => {
    expect(shardSelector(new Set([0, 1]), 2)).toBeUndefined();
  });
});

describe('labelledBucketOf', () => {
  const labelled = (value: string | undefined): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', ...(value === undefined ? {} : { labels: { [SHARD_LABEL]: value } }) } });

  it('reads a bucket only as loom writes it, in range', () => {
    expect(labelledBucketOf(labelled('0'), 8)).toBe(0);
    expect(labelledBucketOf(labelled('7'), 8)).toBe(7);
    for (const value of [undefined, '', '8', '-1', '05', ' 3', '3.0', '1e0', 'x']) expect(labelledBucketOf(labelled(value), 8)).toBeUndefined();
  });
});

describe('shardLabelDecision', () => {
  const BUCKETS = 8;
  /** A UID in bucket `bucket`, found by search (FNV-1a cannot be inverted). */
  const uidIn = (bucket: number, salt = ''): string => {
    for (let i = 0; ; i++) if (bucketOf(`uid-${salt}${i}`, BUCKETS) === bucket) return `uid-${salt}${i}`;
  };
  const parent = (uid: string, label?: string): KubeObject => ({
    apiVersion: 'test.loom.dev/v1', kind: 'Sharded', metadata: { name: 'p', namespace: 'ns', uid, ...(label === undefined ? {} : { labels: { [SHARD_LABEL]: label } }) },
  });
  const child = (ownerUid: string | undefined, label?: string): KubeObject => ({
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: {
      name: 'c', namespace: 'ns', uid: uidIn(0, 'child'),
      ...(label === undefined ? {} : { labels: { [SHARD_LABEL]: label } }),
      ...(ownerUid === undefined ? {} : { ownerReferences: [{ apiVersion: 'test.loom.dev/v1', kind: 'Sharded', name: 'p', uid: ownerUid, controller: true }] }),
    },
  });
  const scope = (...held: number[]) => ({ buckets: BUCKETS, held: new Set(held) });

  it('keeps a parent labelled with its own bucket where that bucket is held, and corrects nothing', () => {
    expect(shardLabelDecision(parent(uidIn(3), '3'), 'parent', scope(3))).toEqual({ keep: true, relabel: undefined });
    expect(shardLabelDecision(parent(uidIn(3), '3'), 'parent', scope(5))).toEqual({ keep: false, relabel: undefined });
  });

  it('has the holder of the bucket a wrong label names keep the parent and correct its label to its own bucket', () => {
    expect(shardLabelDecision(parent(uidIn(3), '5'), 'parent', scope(5))).toEqual({ keep: true, relabel: '3' });
  });

  it('has the holder of both buckets correct the label too', () => {
    expect(shardLabelDecision(parent(uidIn(3), '5'), 'parent', scope(3, 5))).toEqual({ keep: true, relabel: '3' });
  });

  it('leaves an unlabelled or garbage-labelled parent to the holder of its bucket, which every selector lets it reach', () => {
    for (const label of [undefined, 'x', '8', '05']) {
      expect(shardLabelDecision(parent(uidIn(3), label), 'parent', scope(3))).toEqual({ keep: true, relabel: undefined });
      expect(shardLabelDecision(parent(uidIn(3), label), 'parent', scope(5))).toEqual({ keep: false, relabel: undefined });
    }
  });

  it('judges a child by its controller\'s bucket, and keeps an orphan everywhere without correcting it', () => {
    expect(shardLabelDecision(child(uidIn(3), '3'), 'child', scope(3))).toEqual({ keep: true, relabel: undefined });
    expect(shardLabelDecision(child(uidIn(3), '5'), 'child', scope(5))).toEqual({ keep: true, relabel: '3' });
    expect(shardLabelDecision(child(uidIn(3), '5'), 'child', scope(6))).toEqual({ keep: false, relabel: undefined });
    expect(shardLabelDecision(child(undefined, '5'), 'child', scope(6))).toEqual({ keep: true, relabel: undefined });
    expect(shardLabelDecision(child(undefined, '5'), 'child', scope(5))).toEqual({ keep: true, relabel: undefined });
  });

  it('keeps no parent without a UID', () => {
    expect(shardLabelDecision({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, 'parent', scope(0, 1, 2, 3, 4, 5, 6, 7)).keep).toBe(false);
  });

  /** Whether the API server sends `obj` to a replica watching with `selector` (`notin` lets an absent label through). */
  const passes = (selector: string | undefined, obj: KubeObject): boolean => {
    const value = obj.metadata.labels?.[SHARD_LABEL];
    const excluded = /notin \(([^)]*)\)/.exec(selector ?? '')?.[1]?.split(',') ?? [];
    return value === undefined || !excluded.includes(value);
  };

  it('leaves no object unseen: whatever its label, a replica receives it and keeps it, and the one that corrects it hands it to its holder', () => {
    // Two replicas, every way of splitting the buckets between them; every label an author could write.
    const truth = 6;
    const labels = [undefined, 'x', '05', String(BUCKETS), ...[...Array(BUCKETS).keys()].map(String)];
    const cases = Array.from({ length: 2 ** BUCKETS }, (_, split) => split).flatMap((split) =>
      (['parent', 'child'] as const).flatMap((role) => labels.map((label) => ({ split, role, label }))));
    for (const { split, role, label } of cases) {
      const held = [0, 1].map((r) => new Set([...Array(BUCKETS).keys()].filter((b) => ((split >> b) & 1) === r)));
      const make = (value: string | undefined) => role === 'parent' ? parent(uidIn(truth), value) : child(uidIn(truth), value);
      const obj = make(label);
      const seen = held.map((h) => passes(shardSelector(h, BUCKETS), obj) ? shardLabelDecision(obj, role, { buckets: BUCKETS, held: h }) : undefined);
      const holder = held.findIndex((h) => h.has(truth));
      if (seen[holder]?.keep) continue; // Its holder has it already.
      // Else exactly one replica receives it with a wrong label naming a bucket it holds, and corrects it to the true one...
      expect(seen.filter((d) => d?.relabel !== undefined)).toEqual([{ keep: true, relabel: String(truth) }]);
      // ...which its holder then receives and keeps, with nothing left to correct.
      expect(passes(shardSelector(held[holder]!, BUCKETS), make(String(truth)))).toBe(true);
      expect(shardLabelDecision(make(String(truth)), role, { buckets: BUCKETS, held: held[holder]! })).toEqual({ keep: true, relabel: undefined });
    }
  });
});
