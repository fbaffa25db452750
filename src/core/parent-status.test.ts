import { describe, expect, it } from 'vitest';
import { desiredStatus, statusChanged, type JsonObject } from './parent-status.ts';

describe('desiredStatus', () => {
  it.each<[string, JsonObject | null | undefined, number | undefined, JsonObject]>([
    ['null status', null, 3, { observedGeneration: 3 }],
    ['absent status', undefined, 1, { observedGeneration: 1 }],
    ['hook status kept', { replicas: 2, conditions: [{ type: 'Ready', status: 'True' }] }, 7,
      { replicas: 2, conditions: [{ type: 'Ready', status: 'True' }], observedGeneration: 7 }],
    ['hook observedGeneration overridden', { observedGeneration: 1, phase: 'Ready' }, 5, { observedGeneration: 5, phase: 'Ready' }],
    ['no generation stamped without one', { phase: 'Ready' }, undefined, { phase: 'Ready' }],
    ['empty without status or generation', null, undefined, {}],
  ])('%s', (_name, hookStatus, generation, expected) => {
    expect(desiredStatus({ hookStatus, generation })).toEqual(expected);
  });

  it.each<[string, unknown, JsonObject]>([
    ['keeps the observedGeneration now on the parent', { phase: 'Old', observedGeneration: 4 }, { phase: 'New', observedGeneration: 4 }],
    ['sets none when the parent has none', { phase: 'Old' }, { phase: 'New' }],
    ['sets none when the parent has no status', undefined, { phase: 'New' }],
    ['ignores a value that is not a generation', { observedGeneration: 'x' }, { phase: 'New' }],
  ])('while a child write failed, %s', (_name, current, expected) => {
    expect(desiredStatus({ hookStatus: { phase: 'New', observedGeneration: 9 }, generation: 5, current, childrenWritten: false })).toEqual(expected);
  });

  it('copies the hook status instead of changing it', () => {
    const hookStatus: JsonObject = { nested: { a: 1 } };
    const status = desiredStatus({ hookStatus, generation: 2 });
    (status.nested as JsonObject).a = 9;
    expect(hookStatus).toEqual({ nested: { a: 1 } });
  });
});

describe('statusChanged', () => {
  it.each<[string, unknown, JsonObject, boolean]>([
    ['equal', { a: 1, observedGeneration: 2 }, { a: 1, observedGeneration: 2 }, false],
    ['key order ignored', { b: { y: 1, x: [1, 2] }, a: 'x' }, { a: 'x', b: { x: [1, 2], y: 1 } }, false],
    ['value differs', { a: 1 }, { a: 2 }, true],
    ['nested value differs', { a: { b: [1, { c: true }] } }, { a: { b: [1, { c: false }] } }, true],
    ['array order matters', { a: [1, 2] }, { a: [2, 1] }, true],
    ['array length differs', { a: [1] }, { a: [1, 1] }, true],
    ['key added', { a: 1 }, { a: 1, b: 2 }, true],
    ['key removed', { a: 1, b: 2 }, { a: 1 }, true],
    ['same key count, different keys', { a: 1 }, { b: 1 }, true],
    ['null vs missing key', { a: null }, {}, true],
    ['null vs null', { a: null }, { a: null }, false],
    ['array vs object', { a: [] }, { a: {} }, true],
    ['object vs array', { a: {} }, { a: [] }, true],
    ['string vs number', { a: '1' }, { a: 1 }, true],
    ['missing current vs empty', undefined, {}, false],
    ['null current vs empty', null, {}, false],
    ['missing current vs something', undefined, { observedGeneration: 1 }, true],
  ])('%s', (_name, current, desired, changed) => {
    expect(statusChanged(current, desired)).toBe(changed);
  });
});
