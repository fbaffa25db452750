import { describe, expect, it } from 'vitest';
import type { WireFailure } from './evaluator-protocol.ts';
import { clearStrikes, MAX_REST_MS, noStrikes, resting, strike, strikeBook } from './evaluator-strikes.ts';

const crash: WireFailure = { kind: 'hook', message: 'sync hook: JSONata evaluation exceeded the memory limit of 256 MiB', code: '500' };

describe('evaluator strikes', () => {
  it('lets a first end pass, then rests 1 s, 2 s, 4 s … up to 30 s', () => {
    const strikes = noStrikes();
    strike(strikes, crash, 0);
    expect(resting(strikes, 0)).toBeUndefined();
    const rests = [];
    for (let n = 0; n < 8; n++) {
      strike(strikes, crash, 0);
      rests.push(strikes.restUntil);
    }
    expect(rests).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, MAX_REST_MS, MAX_REST_MS, MAX_REST_MS]);
  });

  it('fails calls while resting with the last reason, in words that do not change while it rests', () => {
    // The message reaches a parent's Ready condition: a countdown in it would be a status write per sync.
    const strikes = noStrikes();
    strike(strikes, crash, 0);
    strike(strikes, crash, 0);
    strike(strikes, crash, 10_000);
    const early = resting(strikes, 10_200);
    expect(early).toEqual({
      ...crash,
      message: 'sync hook: JSONata evaluation exceeded the memory limit of 256 MiB (it has ended its evaluator process several times in a row, so it rests before it is evaluated again)',
    });
    expect(resting(strikes, 11_900)).toEqual(early);
    expect(resting(strikes, 12_000)).toBeUndefined();
  });

  it('starts over after an answer', () => {
    const strikes = noStrikes();
    strike(strikes, crash, 0);
    strike(strikes, crash, 0);
    clearStrikes(strikes);
    strike(strikes, crash, 0);
    expect(resting(strikes, 0)).toBeUndefined();
  });

  it('keeps a record per key, dropped when cleared', () => {
    const book = strikeBook();
    book.strike('a', crash, 0);
    book.strike('a', crash, 0);
    book.strike('b', crash, 0);
    expect(book.resting('a', 0)).toBeDefined();
    expect(book.resting('b', 0)).toBeUndefined();
    book.clear('a');
    expect(book.resting('a', 0)).toBeUndefined();
  });
});
