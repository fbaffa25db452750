import { describe, expect, it } from 'vitest';
import { createETagCache, DEFAULT_ETAG_MAX_ENTRIES, etagKeyOf, type ETagCacheOptions } from './etag-cache.ts';

function clockAt(start: number) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const entry = (etag: string, body = `{"e":"${etag}"}`) => ({ etag, body: Buffer.from(body) });

function cache(options: Partial<ETagCacheOptions> = {}) {
  const clock = clockAt(1_000_000);
  return { clock, cache: createETagCache({ clock, ...options }) };
}

describe('etagKeyOf', () => {
  const parent = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'web', namespace: 'default' } };

  it.each<[string, unknown, string | undefined]>([
    ['a composite request (parent)', { controller: {}, parent, children: {} }, '["Widget","default","web"]'],
    ['a customize request (parent)', { controller: {}, parent }, '["Widget","default","web"]'],
    ['a decorator request (object)', { controller: {}, object: parent, attachments: {} }, '["Widget","default","web"]'],
    ['a cluster-scoped root', { parent: { kind: 'Namespace', metadata: { name: 'team-a' } } }, '["Namespace","","team-a"]'],
    ['a root without a kind', { parent: { metadata: { name: 'web' } } }, undefined],
    ['a root without a name', { parent: { kind: 'Widget', metadata: {} } }, undefined],
    ['a request without a root', { controller: {} }, undefined],
    ['something that is not a request', 'sync', undefined],
  ])('keys %s', (_name, request, key) => {
    expect(etagKeyOf(request)).toBe(key);
  });

  it('keeps kind, namespace and name apart even when they contain separators', () => {
    const a = etagKeyOf({ parent: { kind: 'A', metadata: { namespace: 'b/c', name: 'd' } } });
    const b = etagKeyOf({ parent: { kind: 'A', metadata: { namespace: 'b', name: 'c/d' } } });
    expect(a).not.toBe(b);
  });
});

describe('createETagCache', () => {
  it('returns what was stored and replaces it on set', () => {
    const { cache: c } = cache();
    expect(c.get('k')).toBeUndefined();
    c.set('k', entry('"v1"'));
    expect(c.get('k')).toEqual(entry('"v1"'));
    c.set('k', entry('"v2"'));
    expect(c.get('k')).toEqual(entry('"v2"'));
    expect(c.size).toBe(1);
  });

  it('never expires entries without a ttl', () => {
    const { cache: c, clock } = cache();
    c.set('k', entry('"v1"'));
    clock.advance(365 * 24 * 3600 * 1000);
    expect(c.get('k')?.etag).toBe('"v1"');
  });

  it('expires an entry ttl after it was stored, checked on read', () => {
    const { cache: c, clock } = cache({ ttlMs: 60_000 });
    c.set('k', entry('"v1"'));
    clock.advance(59_999);
    expect(c.get('k')?.etag).toBe('"v1"');
    clock.advance(1);
    expect(c.get('k')).toBeUndefined();
    expect(c.size).toBe(0);
    expect(c.bytes).toBe(0);
  });

  it('restarts the ttl when an entry is stored again', () => {
    const { cache: c, clock } = cache({ ttlMs: 60_000 });
    c.set('k', entry('"v1"'));
    clock.advance(50_000);
    c.set('k', entry('"v2"'));
    clock.advance(50_000);
    expect(c.get('k')?.etag).toBe('"v2"');
  });

  it('evicts the oldest entry past the entry bound', () => {
    const { cache: c } = cache({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) c.set(key, entry(key));
    c.set('a', entry('a2')); // stored again: now the newest
    c.set('d', entry('d'));
    expect(c.size).toBe(3);
    expect(['a', 'b', 'c', 'd'].map((key) => c.get(key)?.etag)).toEqual(['a2', undefined, 'c', 'd']);
  });

  it('evicts the oldest entries past the byte bound', () => {
    const { cache: c } = cache({ maxBytes: 10 });
    c.set('a', entry('a', 'aaaa'));
    c.set('b', entry('b', 'bbbb'));
    c.set('c', entry('c', 'cccc'));
    expect(c.get('a')).toBeUndefined();
    expect(c.get('b')?.body.toString()).toBe('bbbb');
    expect(c.bytes).toBe(8);
  });

  it('does not store a body larger than the whole budget, and keeps the others', () => {
    const { cache: c } = cache({ maxBytes: 10 });
    c.set('a', entry('a', 'aaaa'));
    c.set('big', entry('big', 'x'.repeat(11)));
    expect(c.get('big')).toBeUndefined();
    expect(c.get('a')?.etag).toBe('a');
  });

  it('holds at most the default number of entries', () => {
    const { cache: c } = cache();
    for (let i = 0; i <= DEFAULT_ETAG_MAX_ENTRIES; i++) c.set(`k${i}`, entry('e', ''));
    expect(c.size).toBe(DEFAULT_ETAG_MAX_ENTRIES);
    expect(c.get('k0')).toBeUndefined();
    expect(c.get(`k${DEFAULT_ETAG_MAX_ENTRIES}`)).toBeDefined();
  });

  it('deletes an entry and its bytes', () => {
    const { cache: c } = cache();
    c.set('k', entry('e', 'abc'));
    c.delete('k');
    c.delete('never-there');
    expect(c.get('k')).toBeUndefined();
    expect(c.bytes).toBe(0);
  });
});
