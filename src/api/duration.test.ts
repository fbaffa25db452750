import { describe, expect, it } from 'vitest';
import { InvalidDurationError, parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it.each<[string, number]>([
    ['10s', 10_000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['2us', 0.002],
    ['2µs', 0.002],
    ['2μs', 0.002],
    ['1500ns', 0.0015],
    ['1.1s', 1_100],
    ['.5s', 500],
    ['1.s', 1_000],
    ['1h2m3s4ms', 3_723_004],
    ['+5s', 5_000],
    ['-1.5s', -1_500],
    ['0', 0],
    ['-0', 0],
    ['0s', 0],
    ['-0s', 0],
  ])('%s → %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each<[string, string]>([
    ['', 'expected a number and a unit'],
    ['-', 'expected a number and a unit'],
    ['10', 'missing unit'],
    ['1m30', 'missing unit'],
    ['abc', 'expected a number at "abc"'],
    ['.s', 'expected a number'],
    ['3d', 'unknown unit "d"'],
    ['10 s', 'unknown unit " s"'],
    ['1S', 'unknown unit "S"'],
    ['1e3s', 'unknown unit "e"'],
    ['1s ', 'unknown unit "s "'],
    ['3000000h', 'out of range'],
  ])('rejects %j (%s)', (input, reason) => {
    expect(() => parseDuration(input)).toThrow(InvalidDurationError);
    expect(() => parseDuration(input)).toThrow(reason);
  });

  it('quotes the input in the error', () => {
    expect(() => parseDuration('soon')).toThrow('invalid duration "soon"');
  });
});
