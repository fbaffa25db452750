/**
 * The selector of dev's host: the user's `--target-label-selector` narrowed to what dev marked, so
 * the host never runs a controller dev did not create, with or without a selector of the user's.
 */
import { describe, expect, it } from 'vitest';
import { matchesSelector } from '../api/index.ts';
import { DEV_MARK, devSelector, isDevsOwn } from './dev-objects.ts';

const mark = { [DEV_MARK.key]: DEV_MARK.value };

describe('devSelector', () => {
  it('without a selector of the user\'s, matches dev\'s marked controllers only', () => {
    expect(matchesSelector(devSelector(undefined), mark)).toBe(true);
    expect(matchesSelector(devSelector(undefined), {})).toBe(false);
    expect(matchesSelector(devSelector(undefined), { team: 'a' })).toBe(false);
  });

  it('keeps the user\'s labels and expressions, and adds the mark to them', () => {
    const selector = devSelector({ matchLabels: { team: 'a' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['prod'] }] });
    expect(matchesSelector(selector, { ...mark, team: 'a' })).toBe(true);
    expect(matchesSelector(selector, { team: 'a' })).toBe(false);
    expect(matchesSelector(selector, { ...mark, team: 'b' })).toBe(false);
    expect(matchesSelector(selector, { ...mark, team: 'a', tier: 'prod' })).toBe(false);
  });
});

describe('isDevsOwn', () => {
  it('is true only for an object carrying the mark', () => {
    const object = (labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', ...(labels ? { labels } : {}) } });
    expect(isDevsOwn(object(mark))).toBe(true);
    expect(isDevsOwn(object())).toBe(false);
    expect(isDevsOwn(object({ [DEV_MARK.key]: 'helm' }))).toBe(false);
  });
});
