/**
 * Where JSONata blames a failure, as a line and column in the expression: one rule for syntax errors
 * and run-time errors, so `loom validate`, a controller's condition and a sync's event name one place.
 */
import { describe, expect, it } from 'vitest';
import { blamedLocation, placeText } from './jsonata-location.ts';

describe('JSONata location', () => {
  it.each<[string, string, [position: number, token: unknown], [line: number, column: number]]>([
    ['a name token, at its first character', '1 +\n  foo bar', [13, 'bar'], [2, 7]],
    ['a quoted string token', '"a" "b"', [7, 'b'], [1, 5]],
    ['a call, at its $ (JSONata points past the parenthesis)', '(\n  $a := 1;\n  $b := $uppercas("x")\n)', [31, 'uppercas'], [3, 9]],
    ['a call spaced from its parenthesis', 'x &\n $number ("y")', [14, 'number'], [2, 2]],
    ['a token the source does not spell there, one character back', '1 +\n  $x.y', [9, 'z'], [2, 5]],
    ['a failure without a token, where JSONata points', '[1,"a"]^($)', [8, undefined], [1, 9]],
    ['the end of the expression, never past its last character', '(1 +\n\n', [6, '(end)'], [1, 5]],
  ])('places %s', (_name, expression, [position, token], [line, column]) => {
    expect(blamedLocation(expression, position, token)).toMatchObject({ line, column });
  });

  it('places nothing where JSONata gave no position', () => {
    expect(blamedLocation('$error("boom")', undefined, 'error')).toBeUndefined();
    expect(placeText(undefined)).toBe('');
  });

  it('says the place as a line and column, never an offset', () => {
    expect(placeText({ line: 3, column: 9 })).toBe(' at line 3, column 9');
  });
});
