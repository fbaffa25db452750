import { describe, expect, it } from 'vitest';
import { FieldReader, childPath, formatProblem, omitUndefined } from './field-reader.ts';

describe('childPath', () => {
  it.each([
    ['', 'spec', 'spec'],
    ['spec', 'hooks', 'spec.hooks'],
    ['metadata.labels', 'app.kubernetes.io/name', 'metadata.labels["app.kubernetes.io/name"]'],
    ['labels', 'delete-me', 'labels["delete-me"]'],
    ['', 'odd key', '["odd key"]'],
  ])('%j + %j → %s', (base, key, path) => {
    expect(childPath(base, key)).toBe(path);
  });
});

describe('formatProblem', () => {
  it('shows the root as (root)', () => {
    expect(formatProblem({ path: '', message: 'expected an object' })).toBe('(root): expected an object');
    expect(formatProblem({ path: 'a.b', message: 'is required' })).toBe('a.b: is required');
  });
});

describe('omitUndefined', () => {
  it('drops undefined fields and keeps null, false and 0', () => {
    expect(omitUndefined({ a: undefined, b: null, c: false, d: 0 })).toStrictEqual({ b: null, c: false, d: 0 });
  });
});

describe('FieldReader', () => {
  it('reports a missing required field only when its parent exists', () => {
    const root = FieldReader.root({ spec: 'not an object' });
    root.field('spec').object(true);
    root.field('spec').field('name').string({ required: true });
    root.field('other').field('name').string({ required: true });
    expect(root.report.problems).toEqual([{ path: 'spec', message: 'expected an object' }]);
  });

  it('treats null as absent', () => {
    const root = FieldReader.root({ a: null });
    expect(root.field('a').present).toBe(false);
    expect(root.field('a').string({ required: true })).toBeUndefined();
    expect(root.report.problems).toEqual([{ path: 'a', message: 'is required' }]);
  });

  it('does not read inherited properties', () => {
    const root = FieldReader.root({});
    expect(root.field('toString').present).toBe(false);
    expect(root.field('constructor').present).toBe(false);
  });

  it('keeps a __proto__ key as data in string maps', () => {
    const map = FieldReader.root(JSON.parse('{"__proto__": "x", "a": "b"}')).stringMap();
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    expect(Object.keys(map ?? {})).toEqual(['__proto__', 'a']);
  });

  it.each<[unknown, string]>([
    [1.5, 'expected an integer'],
    [2 ** 31, 'expected an integer from -2147483648 to 2147483647'],
    ['1', 'expected an integer'],
  ])('rejects %j as an int32', (value, message) => {
    const root = FieldReader.root(value);
    expect(root.integer()).toBeUndefined();
    expect(root.report.problems).toEqual([{ path: '', message }]);
  });

  it('reports each bad list item at its index', () => {
    const root = FieldReader.root({ names: ['a', 1, 'c', null] });
    expect(root.field('names').stringList()).toBeUndefined();
    expect(root.report.problems.map((p) => p.path)).toEqual(['names[1]', 'names[3]']);
  });

  it('records warnings apart from problems', () => {
    const root = FieldReader.root({ known: 1, typo: 2 });
    root.warnUnknownFields(['known']);
    expect(root.report).toEqual({ problems: [], warnings: [{ path: 'typo', message: 'unknown field; ignored' }] });
  });

  it('names the known field an unknown one is nearest, or the hint given for it', () => {
    const root = FieldReader.root({ resorce: 1, dependsOn: [] });
    root.warnUnknownFields(['resource'], { dependsOn: 'set it per child' });
    expect(root.report.warnings).toEqual([
      { path: 'resorce', message: 'unknown field; ignored (did you mean resource?)' },
      { path: 'dependsOn', message: 'unknown field; ignored: set it per child' },
    ]);
  });

  it('names the choice a wrong value is nearest, and only then', () => {
    const root = FieldReader.root({ a: 'orphan', b: 'Keep', c: 'Retain' });
    expect(root.field('a').oneOfSuggesting(['Delete', 'Orphan', 'Retain'])).toBeUndefined();
    expect(root.field('b').oneOfSuggesting(['Delete', 'Orphan', 'Retain'])).toBeUndefined();
    expect(root.field('c').oneOfSuggesting(['Delete', 'Orphan', 'Retain'])).toBe('Retain');
    expect(root.report.problems).toEqual([
      { path: 'a', message: 'expected one of Delete, Orphan, Retain; got "orphan" (did you mean Orphan?)' },
      { path: 'b', message: 'expected one of Delete, Orphan, Retain; got "Keep"' },
    ]);
  });
});
