import { describe, expect, it } from 'vitest';
import type { LabelSelector } from './label-selector.ts';
import { selectorsDisjoint } from './selector-overlap.ts';

const labels = (matchLabels: Record<string, string>): LabelSelector => ({ matchLabels });
const expr = (key: string, operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist', values?: string[]): LabelSelector =>
  ({ matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] });

describe('selectorsDisjoint', () => {
  it.each<[string, LabelSelector | undefined, LabelSelector | undefined, boolean]>([
    ['different values of one key', labels({ mode: 'a' }), labels({ mode: 'b' }), true],
    ['the same value', labels({ mode: 'a' }), labels({ mode: 'a' }), false],
    ['different keys', labels({ mode: 'a' }), labels({ tier: 'b' }), false],
    ['no selector on one side', undefined, labels({ mode: 'a' }), false],
    ['empty selector', {}, labels({ mode: 'a' }), false],
    ['In sets without a common value', expr('mode', 'In', ['a', 'b']), expr('mode', 'In', ['c']), true],
    ['In sets sharing a value', expr('mode', 'In', ['a', 'b']), expr('mode', 'In', ['b', 'c']), false],
    ['In against NotIn of all its values', expr('mode', 'In', ['a', 'b']), expr('mode', 'NotIn', ['a', 'b']), true],
    ['In against NotIn of some of its values', expr('mode', 'In', ['a', 'b']), expr('mode', 'NotIn', ['a']), false],
    ['a value against DoesNotExist', labels({ mode: 'a' }), expr('mode', 'DoesNotExist'), true],
    ['Exists against DoesNotExist', expr('mode', 'Exists'), expr('mode', 'DoesNotExist'), true],
    ['Exists against a value', expr('mode', 'Exists'), labels({ mode: 'a' }), false],
    ['NotIn against NotIn', expr('mode', 'NotIn', ['a']), expr('mode', 'NotIn', ['b']), false],
    ['matchLabels and In on one side narrowing to nothing shared', { matchLabels: { mode: 'a' }, matchExpressions: [{ key: 'mode', operator: 'In', values: ['a', 'b'] }] }, labels({ mode: 'b' }), true],
  ])('%s → %s', (_name, a, b, disjoint) => {
    expect(selectorsDisjoint(a, b)).toBe(disjoint);
    expect(selectorsDisjoint(b, a)).toBe(disjoint);
  });
});
