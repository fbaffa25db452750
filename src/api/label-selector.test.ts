import { describe, expect, it } from 'vitest';
import { formatSelector, InvalidSelectorError, matchesSelector, type LabelSelector } from './label-selector.ts';

const labels = { app: 'web', tier: 'front' };

describe('matchesSelector', () => {
  it.each<[string, LabelSelector, boolean]>([
    ['empty selector matches everything', {}, true],
    ['matchLabels all present', { matchLabels: { app: 'web' } }, true],
    ['matchLabels value differs', { matchLabels: { app: 'db' } }, false],
    ['matchLabels key missing', { matchLabels: { zone: 'a' } }, false],
    ['In with the value', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    ['In without the value', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] }, false],
    ['In on a missing key', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
    ['NotIn with the value', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, false],
    ['NotIn on a missing key', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    ['Exists', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    ['labels and expressions both needed', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, false],
  ])('%s', (_name, selector, expected) => {
    expect(matchesSelector(selector, labels)).toBe(expected);
  });

  it('treats missing labels as none', () => {
    expect(matchesSelector({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] })).toBe(true);
  });

  it('rejects In without values and unknown operators', () => {
    expect(() => matchesSelector({ matchExpressions: [{ key: 'a', operator: 'In' }] }, labels)).toThrow(InvalidSelectorError);
    const bad = { matchExpressions: [{ key: 'a', operator: 'Near' }] } as unknown as LabelSelector;
    expect(() => matchesSelector(bad, labels)).toThrow('unknown selector operator "Near"');
  });
});

describe('formatSelector', () => {
  it('prints labels first, then each expression, as kubectl does', () => {
    expect(formatSelector({
      matchLabels: { app: 'web', tier: 'front' },
      matchExpressions: [
        { key: 'zone', operator: 'In', values: ['a', 'b'] }, { key: 'env', operator: 'NotIn', values: ['dev'] },
        { key: 'owner', operator: 'Exists' }, { key: 'legacy', operator: 'DoesNotExist' },
      ],
    })).toBe('app=web,tier=front,zone in (a,b),env notin (dev),owner,!legacy');
  });
});
