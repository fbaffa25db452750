import { describe, expect, it } from 'vitest';
import { parseSelectorString, SelectorSyntaxError } from './selector-string.ts';

describe('parseSelectorString', () => {
  it.each([
    ['', {}],
    ['app=web', { matchLabels: { app: 'web' } }],
    ['app==web, tier=front', { matchLabels: { app: 'web', tier: 'front' } }],
    ['env!=prod', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }],
    ['zone in (a, b),team notin (x)', { matchExpressions: [
      { key: 'zone', operator: 'In', values: ['a', 'b'] }, { key: 'team', operator: 'NotIn', values: ['x'] }] }],
    ['example.com/owner,!legacy', { matchExpressions: [
      { key: 'example.com/owner', operator: 'Exists' }, { key: 'legacy', operator: 'DoesNotExist' }] }],
  ])('%j', (text, expected) => {
    expect(parseSelectorString(text)).toEqual(expected);
  });

  it.each(['a=b=c', 'in (x)', 'a in x', '=b'])('rejects %j', (text) => {
    expect(() => parseSelectorString(text)).toThrow(SelectorSyntaxError);
  });
});
