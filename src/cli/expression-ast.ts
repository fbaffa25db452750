/**
 * What the checks that read a JSONata expression's AST share: the AST itself, and where a token
 * starts as line and column (JSONata gives each node the offset just past its token, and a name or
 * key may be spelled quoted in the source).
 */
import jsonata from 'jsonata';
import { lineAndColumn } from './literal-objects.ts';

/** The AST of `expression`, or `undefined` when it does not compile (that is reported elsewhere). */
export function expressionAst(expression: string): unknown {
  try {
    return jsonata(expression).ast();
  } catch {
    return undefined;
  }
}

/** 1-based line and column. */
export interface Place {
  line: number;
  column: number;
}

/**
 * The place of the token `text` that ends at `position`: its opening quote or backtick when the
 * source spells it quoted there, else its first character.
 */
export function tokenPlace(expression: string, position: number, text: string): Place {
  const spelled = [`\`${text}\``, `"${text}"`, `'${text}'`].find((s) => expression.slice(position - s.length, position) === s);
  return lineAndColumn(expression, position - (spelled ?? text).length);
}
