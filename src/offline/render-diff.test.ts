import { describe, expect, it } from 'vitest';
import { diffPaths } from './render-diff.ts';

const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';

describe('diffPaths', () => {
  it.each([
    ['equal objects', { a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 2] } }, []],
    ['a changed scalar', { spec: { replicas: 2 } }, { spec: { replicas: 3 } }, ['spec.replicas: 2 → 3']],
    ['an added key', { data: {} }, { data: { extra: '1' } }, ['+ data.extra: "1"']],
    ['a removed key', { data: { old: 'x', kept: 'y' } }, { data: { kept: 'y' } }, ['- data.old: "x"']],
    ['an added object, leaf by leaf', {}, { data: { a: '1', b: { c: true } } }, ['+ data.a: "1"', '+ data.b.c: true']],
    ['an added empty object as one line', {}, { status: {} }, ['+ status: {}']],
    ['list items by index', { l: [1, 2, 3] }, { l: [1, 5] }, ['l[1]: 2 → 5', '- l[2]: 3']],
    ['items of a list of objects', { c: [{ name: 'web', image: 'a' }] }, { c: [{ name: 'web', image: 'b' }] }, ['c[0].image: "a" → "b"']],
    ['keys that are not identifiers', { labels: { 'example.com/x': 'a' } }, { labels: { 'example.com/x': 'b' } }, ['labels["example.com/x"]: "a" → "b"']],
    ['a type change', { a: { b: 1 } }, { a: 'flat' }, ['a: {"b":1} → "flat"']],
    ['null as a value', { a: null }, { a: 1 }, ['a: null → 1']],
  ])('reports %s', (_name, before, after, lines) => {
    expect(diffPaths(before, after)).toEqual(lines);
  });

  it('keeps the before order and appends new keys', () => {
    expect(diffPaths({ b: 1, a: 1 }, { c: 1, a: 2, b: 2 })).toEqual(['b: 1 → 2', 'a: 1 → 2', '+ c: 1']);
  });

  it('does not quote the last-applied annotation', () => {
    const annotated = (json: string) => ({ metadata: { annotations: { [LAST_APPLIED]: json } } });
    const path = `metadata.annotations["${LAST_APPLIED}"]`;
    expect(diffPaths({ metadata: {} }, annotated('{"a":1}'))).toEqual([`+ ${path}: (added)`]);
    expect(diffPaths(annotated('{"a":1}'), annotated('{"a":2}'))).toEqual([`${path}: (updated)`]);
    expect(diffPaths(annotated('{"a":1}'), { metadata: { annotations: {} } })).toEqual([`- ${path}: (removed)`]);
  });
});
