/**
 * The field paths a JSONata hook reads from one field of its input (`parent`, `object`), found in its
 * AST, for `loom validate` to hold against the field's schema. Conservative: only a path that starts
 * at the input (`parent.…` where the context is the input, `$.parent.…` there, `$$.parent.…`
 * anywhere) and only its name and wildcard steps, through filters (`ports[0].port`), up to the first
 * step that is anything else (a function, block, variable, sort, or a name that binds a variable ends it).
 */
import { expressionAst, tokenPlace, type Place } from './expression-ast.ts';

/** One path read: the names below the field (`['spec', 'message']`, `*` for a wildcard) and where each is written. */
export interface FieldRead {
  names: string[];
  places: Place[];
}

interface AstNode {
  type?: unknown;
  value?: unknown;
  position?: unknown;
  steps?: unknown;
  procedure?: unknown;
  arguments?: unknown;
}

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Node types whose operands are evaluated in the node's own context (a lambda's body in the one it was defined in). */
const SAME_CONTEXT = new Set(['binary', 'unary', 'condition', 'block', 'bind', 'function', 'partial', 'lambda', 'apply']);

/** Keys a name step has when it is nothing but a name. */
const PLAIN_KEYS = new Set(['type', 'value', 'position', 'keepArray']);

function isName(step: unknown): step is AstNode & { value: string; position: number } {
  return isNode(step) && step.type === 'name' && typeof step.value === 'string' && typeof step.position === 'number';
}

/** A step a read goes on through: a name, or a wildcard (`*`, any field), which the read names `*`. */
function isFieldStep(step: unknown): step is AstNode & { value: string; position: number } {
  return isName(step) || (isNode(step) && step.type === 'wildcard' && step.value === '*' && typeof step.position === 'number');
}

/** Where a path's steps below the input start: 1 after `$$` (anywhere) or `$` (in the input's context), 0 at a bare name in that context. */
function inputStart(steps: readonly unknown[], atInput: boolean): number | undefined {
  const first = steps[0];
  const isVariable = isNode(first) && first.type === 'variable' && isPlain(first);
  if (isVariable && first.value === '$') return 1;
  if (!atInput) return undefined;
  return isVariable && first.value === '' ? 1 : 0;
}

function isPlain(node: AstNode): boolean {
  return Object.keys(node).every((key) => PLAIN_KEYS.has(key));
}

/** Whether a read continues past `step`: a plain name, or one only filtered (`ports[0]`), which keeps the items' schema. */
function readsOn(step: AstNode & { stages?: unknown }): boolean {
  const { stages, ...rest } = step;
  const filtersOnly = stages === undefined || (Array.isArray(stages) && stages.every((stage) => isNode(stage) && stage.type === 'filter'));
  return filtersOnly && isPlain(rest);
}

/** The index of the first step below the input's `field`, when `steps` start there. */
function belowField(steps: readonly unknown[], atInput: boolean, field: string): number | undefined {
  const start = inputStart(steps, atInput);
  const head = start === undefined ? undefined : steps[start];
  return start !== undefined && isName(head) && head.value === field && isPlain(head) ? start + 1 : undefined;
}

/**
 * The read loom's `$child(children, "Kind.apiVersion", name)` makes of `field` (`children`): the
 * key, then `*` for the one object it picks (placed at the key), when its map is the input's field.
 */
function helperRead(node: unknown, atInput: boolean, field: string, expression: string): FieldRead | undefined {
  const [map, key] = childCallArguments(node);
  const steps = isNode(map) && map.type === 'path' && Array.isArray(map.steps) ? (map.steps as unknown[]) : [];
  if (steps.length !== 1 || belowField(steps, atInput, field) !== 1 || !isStringLiteral(key)) return undefined;
  const place = tokenPlace(expression, key.position, key.value);
  return { names: [key.value, '*'], places: [place, place] };
}

/** The arguments of a `$child(…)` call; none for any other node. */
function childCallArguments(node: unknown): unknown[] {
  const isCall = isNode(node) && node.type === 'function' && isNode(node.procedure) && node.procedure.value === 'child';
  return isCall && Array.isArray(node.arguments) ? (node.arguments as unknown[]) : [];
}

function isStringLiteral(node: unknown): node is AstNode & { value: string; position: number } {
  return isNode(node) && node.type === 'string' && typeof node.value === 'string' && typeof node.position === 'number';
}

/** The read `path` makes of `field`, when it starts at the input and names anything below the field. */
function readOf(path: AstNode, atInput: boolean, field: string, expression: string): FieldRead | undefined {
  const steps = Array.isArray(path.steps) ? (path.steps as unknown[]) : [];
  const helper = helperRead(steps[0], atInput, field, expression);
  const below = helper === undefined ? belowField(steps, atInput, field) : 1;
  if (below === undefined) return undefined;
  const read: FieldRead = helper ?? { names: [], places: [] };
  for (const step of steps.slice(below)) {
    if (!isFieldStep(step)) break;
    read.names.push(step.value);
    read.places.push(tokenPlace(expression, step.position, step.value));
    if (!readsOn(step)) break;
  }
  return read.names.length > 0 ? read : undefined;
}

/** A value of the AST still to visit, and whether its context is the input. */
interface Visit {
  value: unknown;
  atInput: boolean;
}

/** The operands of `node` to visit: a path's first step keeps its context, the later ones do not. */
function operands(node: AstNode, atInput: boolean): Visit[] {
  if (node.type === 'path' && Array.isArray(node.steps)) {
    const [first, ...rest] = node.steps as unknown[];
    const others: unknown[] = Object.entries(node).filter(([key]) => key !== 'steps').map(([, value]) => value as unknown);
    return [{ value: first, atInput }, ...[...rest, ...others].map((value) => ({ value, atInput: false }))];
  }
  const same = atInput && typeof node.type === 'string' && SAME_CONTEXT.has(node.type);
  return Object.values(node).map((value: unknown) => ({ value, atInput: same }));
}

/** The key alone a `$child` call reads, wherever it stands (in a path too, which reads on below it). */
function helperKey(node: AstNode, atInput: boolean, field: string, expression: string): FieldRead | undefined {
  const read = helperRead(node, atInput, field, expression);
  return read && { names: read.names.slice(0, 1), places: read.places.slice(0, 1) };
}

/** Every path `expression` reads below its input's `field`, in source order; none when it does not compile. */
export function fieldReads(expression: string, field: string): FieldRead[] {
  const ast = expressionAst(expression);
  const found: FieldRead[] = [];
  // A stack of its own, not recursion: an expression nested as deeply as JSONata's parser allows
  // would overflow the call stack.
  const pending: Visit[] = ast === undefined ? [] : [{ value: ast, atInput: true }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value, atInput } = visit;
    if (Array.isArray(value)) for (const item of value as unknown[]) pending.push({ value: item, atInput });
    if (!isNode(value)) continue;
    const read = value.type === 'path' ? readOf(value, atInput, field, expression) : helperKey(value, atInput, field, expression);
    if (read !== undefined) found.push(read);
    for (const operand of operands(value, atInput)) pending.push(operand);
  }
  return distinct(found).sort((a, b) => a.places[0]!.line - b.places[0]!.line || a.places[0]!.column - b.places[0]!.column || a.names.length - b.names.length);
}

/** Each read once: JSONata's parser copies some operands (`a ?? b` holds `a` in the test and in the result). */
function distinct(reads: readonly FieldRead[]): FieldRead[] {
  const byPlace = new Map(reads.map((read) => [JSON.stringify(read), read]));
  return [...byPlace.values()];
}
