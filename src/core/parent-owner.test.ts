import { describe, expect, it } from 'vitest';
import { parentOwner, type ParentClaim } from './parent-owner.ts';

const claim = (name: string, createdAt: string | undefined, extra: Partial<ParentClaim> = {}): ParentClaim =>
  ({ name, createdAt, apiVersion: 'example.com/v1', resource: 'widgets', selector: undefined, ...extra });

describe('parentOwner', () => {
  it('gives the type to the older controller', () => {
    const first = claim('zeta', '2026-01-01T00:00:00Z');
    const second = claim('alpha', '2026-02-01T00:00:00Z');
    expect(parentOwner(second, [first, second])).toBe(first);
    expect(parentOwner(first, [first, second])).toBeUndefined();
  });

  it('breaks a tie in creation time by name', () => {
    const a = claim('a', '2026-01-01T00:00:00Z');
    const b = claim('b', '2026-01-01T00:00:00Z');
    expect(parentOwner(b, [a, b])).toBe(a);
    expect(parentOwner(a, [a, b])).toBeUndefined();
  });

  it('lets controllers with disjoint parent selectors share a type', () => {
    const a = claim('a', '2026-01-01T00:00:00Z', { selector: { matchLabels: { mode: 'a' } } });
    const b = claim('b', '2026-02-01T00:00:00Z', { selector: { matchLabels: { mode: 'b' } } });
    expect(parentOwner(b, [a, b])).toBeUndefined();
  });

  it('treats another version of the same group and resource as the same type, and another group as another', () => {
    const a = claim('a', '2026-01-01T00:00:00Z');
    expect(parentOwner(claim('b', '2026-02-01T00:00:00Z', { apiVersion: 'example.com/v2' }), [a])).toBe(a);
    expect(parentOwner(claim('c', '2026-02-01T00:00:00Z', { apiVersion: 'other.com/v1' }), [a])).toBeUndefined();
  });

  it('does not let a controller that is itself outranked block a third one', () => {
    const a = claim('a', '2026-01-01T00:00:00Z', { selector: { matchLabels: { mode: 'a' } } });
    const b = claim('b', '2026-02-01T00:00:00Z');
    const c = claim('c', '2026-03-01T00:00:00Z', { selector: { matchLabels: { mode: 'c' } } });
    expect(parentOwner(b, [a, b, c])).toBe(a);
    expect(parentOwner(c, [a, b, c])).toBeUndefined();
  });
});
