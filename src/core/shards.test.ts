import { describe, expect, it } from 'vitest';
import { bucketOf, fairShare, planShardMoves, shardSelector, type ShardView } from './shards.ts';

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
