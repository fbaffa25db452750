import { describe, expect, it } from 'vitest';
import { canonicalJson, compareStrings, jsonEqual } from './json-value.ts';

describe('canonicalJson', () => {
  it.each<[string, unknown, string]>([
    ['sorts keys at every level', { b: 1, a: { d: [{ z: 1, y: 2 }], c: null } }, '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}'],
    ['sorts integer-like keys as text', { b: 1, '10': 2, '9': 3 }, '{"10":2,"9":3,"b":1}'],
    ['leaves out undefined members', { a: undefined, b: 1 }, '{"b":1}'],
    ['escapes strings as JSON does', { 'k"': 'line\nbreak' }, '{"k\\"":"line\\nbreak"}'],
    ['writes scalars', [true, 1.5, 'x', null], '[true,1.5,"x",null]'],
    ['drops functions from objects and writes them as null in arrays', { f: () => 1, a: [() => 1] }, '{"a":[null]}'],
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });
});

describe('jsonEqual', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['ignores key order', { a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }, true],
    ['keeps array order', [1, 2], [2, 1], false],
    ['tells a number from a string', { a: 1 }, { a: '1' }, false],
    ['tells a missing key from null', { a: null }, {}, false],
  ])('%s', (_name, a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
  });
});

describe('compareStrings', () => {
  it('orders by code unit', () => {
    expect(['b', 'B', '10', '9'].sort(compareStrings)).toEqual(['10', '9', 'B', 'b']);
  });
});
