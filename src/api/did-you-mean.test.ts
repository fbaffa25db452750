import { describe, expect, it } from 'vitest';
import { closestMatch } from './did-you-mean.ts';

const KINDS = ['CompositeController', 'DecoratorController'];

describe('closestMatch', () => {
  it.each([
    ['CompositeControler', KINDS, 'CompositeController'],
    ['compositecontroller', KINDS, 'CompositeController'],
    ['DecoratorControlelr', KINDS, 'DecoratorController'],
    ['greeterz', ['greeters', 'configmaps'], 'greeters'],
    ['cofnigmaps', ['greeters', 'configmaps'], 'configmaps'],
  ])('suggests %s → %s', (word, candidates, expected) => {
    expect(closestMatch(word, candidates)).toBe(expected);
  });

  it.each([
    ['Deployment', KINDS],
    ['CompositeController', KINDS],
    ['pods', ['greeters', 'configmaps']],
    ['', KINDS],
  ])('suggests nothing for %s', (word, candidates) => {
    expect(closestMatch(word, candidates)).toBeUndefined();
  });

  it('prefers the nearer candidate', () => {
    expect(closestMatch('secrtes', ['secrets', 'services'])).toBe('secrets');
  });
});
