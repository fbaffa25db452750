import { describe, expect, it } from 'vitest';
import { conflictingClaim, type ParentClaim } from './parent-owner.ts';

const claim = (name: string, extra: Partial<ParentClaim> = {}): ParentClaim =>
  ({ name, apiVersion: 'example.com/v1', resource: 'widgets', selector: undefined, ...extra });

describe('conflictingClaim', () => {
  it('finds a running controller of the same parent type', () => {
    const running = claim('first');
    expect(conflictingClaim(claim('second'), [running])).toBe(running);
  });

  it('ignores the candidate’s own claim', () => {
    expect(conflictingClaim(claim('first'), [claim('first')])).toBeUndefined();
  });

  it('lets controllers with disjoint parent selectors share a type', () => {
    const blue = claim('blue', { selector: { matchLabels: { color: 'blue' } } });
    expect(conflictingClaim(claim('green', { selector: { matchLabels: { color: 'green' } } }), [blue])).toBeUndefined();
    expect(conflictingClaim(claim('any'), [blue])).toBe(blue);
  });

  it('treats another version of the same group and resource as the same type, and another group as another', () => {
    const running = claim('first');
    expect(conflictingClaim(claim('v2', { apiVersion: 'example.com/v2' }), [running])).toBe(running);
    expect(conflictingClaim(claim('other', { apiVersion: 'other.com/v1' }), [running])).toBeUndefined();
    expect(conflictingClaim(claim('gadgets', { resource: 'gadgets' }), [running])).toBeUndefined();
  });
});
