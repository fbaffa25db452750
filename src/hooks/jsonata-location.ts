/**
 * Where in an expression JSONata blames a failure, as a 1-based line and column: one rule for syntax
 * errors and run-time errors, so `loom validate`, a controller's condition, a sync's event and its log
 * line all name the same place, and never a character offset a user would have to count.
 */
import type { ExpressionLocation } from './jsonata-errors.ts';

/** 1-based line and column of `offset` in `text` (also where `loom validate` places what it finds in an expression). */
export function locate(text: string, offset: number): ExpressionLocation {
  const before = text.slice(0, offset);
  return { position: offset, line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/** Where `spelled` ends just before `end` in `expression`, its start; else `undefined`. */
function startOf(expression: string, end: number, spellings: readonly string[]): number | undefined {
  const spelled = spellings.find((s) => expression.slice(end - s.length, end) === s);
  return spelled === undefined ? undefined : end - spelled.length;
}

/**
 * The start of a function call JSONata blames: its position is just past the call's `(`, its token the
 * function's name without the `$`. Points at the `$` when the source spells `$name (`.
 */
function callStart(expression: string, position: number, name: string): number | undefined {
  if (expression[position - 1] !== '(') return undefined;
  const end = expression.slice(0, position - 1).trimEnd().length;
  const start = startOf(expression, end, [name]);
  if (start === undefined) return undefined;
  return expression[start - 1] === '$' ? start - 1 : start;
}

/**
 * The offset of the token JSONata blames. Its `position` is just past that token: step back over the
 * token when the source there spells it (as is, quoted since a string token lacks its quotes, or as a
 * call `$name(`), else one character. "End of expression" errors stay at the end, but never past the
 * last non-blank character (the blank line a YAML `|` block leaves).
 */
function blamedOffset(expression: string, position: number, token: unknown): number {
  const text = typeof token === 'string' || typeof token === 'number' ? String(token) : '';
  let start = position;
  if (text !== '' && text !== '(end)') {
    start = startOf(expression, position, [text, `"${text}"`, `'${text}'`]) ?? callStart(expression, position, text) ?? position - 1;
  }
  return Math.max(0, Math.min(start, expression.trimEnd().length));
}

/**
 * Where JSONata's `position` and `token` (as it reports them for a syntax or a run-time error) put the
 * failure in `expression`: the blamed token's first character, its offset, line and column.
 * `undefined` when JSONata gave no position: better no place than an invented one.
 */
export function blamedLocation(expression: string, position: number, token: unknown): ExpressionLocation;
export function blamedLocation(expression: string, position: number | undefined, token: unknown): ExpressionLocation | undefined;
export function blamedLocation(expression: string, position: number | undefined, token: unknown): ExpressionLocation | undefined {
  return position === undefined ? undefined : locate(expression, blamedOffset(expression, position, token));
}

/** ` at line 3, column 7` for messages, or nothing for no location. */
export function placeText(location: Pick<ExpressionLocation, 'line' | 'column'> | undefined): string {
  return location === undefined ? '' : ` at line ${location.line}, column ${location.column}`;
}
