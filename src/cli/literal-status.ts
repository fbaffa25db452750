/**
 * The status fields a JSONata sync or finalize hook writes literally: the string keys of the object
 * constructor its answer gives as `status`, and of the constructors nested in it (through array
 * constructors), for `loom validate` to hold against the parent's status schema. The answer is the
 * expression's object constructor, the last expression of a block, or either branch of a condition;
 * a status built any other way (`$merge`, a variable) is not read.
 */
import { expressionAst, tokenPlace, type Place } from './expression-ast.ts';

/** One literal status field: its path below `status` and where its key is written. */
export interface StatusField extends Place {
  names: string[];
}

interface AstNode {
  type?: unknown;
  value?: unknown;
  position?: unknown;
  lhs?: unknown;
  expressions?: unknown;
  then?: unknown;
  else?: unknown;
}

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isConstructor(node: unknown, bracket: '{' | '['): node is AstNode {
  return isNode(node) && node.type === 'unary' && node.value === bracket;
}

/** The `[key, value]` pairs of an object constructor. */
function pairsOf(node: AstNode): unknown[][] {
  return Array.isArray(node.lhs) ? (node.lhs as unknown[]).filter((pair): pair is unknown[] => Array.isArray(pair)) : [];
}

/** The object constructors that can be the expression's answer (see the module comment). */
function answers(ast: unknown): AstNode[] {
  const found: AstNode[] = [];
  const pending = [ast];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (isConstructor(node, '{')) found.push(node);
    else if (isNode(node) && node.type === 'block' && Array.isArray(node.expressions)) pending.push(node.expressions.at(-1));
    else if (isNode(node) && node.type === 'condition') pending.push(node.then, node.else);
  }
  return found;
}

/** The object constructors `value` builds: itself, or those an array constructor (of arrays) holds. */
function objectsIn(value: unknown): AstNode[] {
  const found: AstNode[] = [];
  const pending = [value];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (isConstructor(node, '{')) found.push(node);
    else if (isConstructor(node, '[') && Array.isArray(node.expressions)) pending.push(...(node.expressions as unknown[]));
  }
  return found;
}

/** A constructor still to read, and the status path it builds. */
interface Visit {
  node: AstNode;
  prefix: string[];
}

/** Every literal field of the status constructor `status`. */
function fieldsOf(status: AstNode, expression: string): StatusField[] {
  const found: StatusField[] = [];
  const pending: Visit[] = [{ node: status, prefix: [] }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    for (const [key, value] of pairsOf(visit.node)) {
      if (!isNode(key) || key.type !== 'string' || typeof key.value !== 'string' || typeof key.position !== 'number') continue;
      const names = [...visit.prefix, key.value];
      found.push({ names, ...tokenPlace(expression, key.position, key.value) });
      for (const node of objectsIn(value)) pending.push({ node, prefix: names });
    }
  }
  return found;
}

/** The literal status fields of `expression`'s answer, in source order; none when it does not compile. */
export function literalStatusFields(expression: string): StatusField[] {
  const statuses = answers(expressionAst(expression)).flatMap((answer) => pairsOf(answer))
    .filter(([key]) => isNode(key) && key.type === 'string' && key.value === 'status')
    .map(([, value]) => value)
    .filter((value) => isConstructor(value, '{'));
  return statuses.flatMap((status) => fieldsOf(status, expression)).sort((a, b) => a.line - b.line || a.column - b.column);
}
