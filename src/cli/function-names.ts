/**
 * The functions an inline JSONata expression calls, checked against what it will find bound when it
 * runs: JSONata's library, loom's helpers, and the variables the expression binds itself
 * (`$f := function…`, lambda parameters, `@$item` and `#$i` in a path, `$` and `$$`). A misspelt
 * function (`$uppercas`) would otherwise fail only at run time, with "Attempted to invoke a
 * non-function". The expression's syntax tree is walked, so a name in a string or a comment is never
 * taken for a call. A variable bound anywhere in the expression counts as bound everywhere in it:
 * scope is not tracked, so the check may miss a call but never reports a bound one.
 */
import jsonata from 'jsonata';
import { closestMatch, type ChildResourceRule, type FieldProblem, type Hook } from '../api/index.ts';
import { boundFunctionNames, locate } from '../hooks/index.ts';

/** One call of a function named by a variable: its name without the `$`, and JSONata's position (just past the name). */
interface Call {
  name: string;
  position: number;
}

/** What the walk collects from one expression. */
interface Names {
  calls: Call[];
  bound: Set<string>;
}

interface AstNode {
  type?: unknown;
  value?: unknown;
  position?: unknown;
  procedure?: unknown;
  rhs?: unknown;
  lhs?: unknown;
  arguments?: unknown;
  focus?: unknown;
  index?: unknown;
}

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The variable's name when `node` is a variable (`$name`), else `undefined`. */
function variableName(node: unknown): string | undefined {
  return isNode(node) && node.type === 'variable' && typeof node.value === 'string' ? node.value : undefined;
}

/** The variable a call (`$f(x)`, `$f(?)`) or an application (`x ~> $f`) invokes, if a variable names it. */
function calledVariable(node: AstNode): unknown {
  if (node.type === 'function' || node.type === 'partial') return node.procedure;
  return node.type === 'apply' ? node.rhs : undefined;
}

/** The names `node` itself binds: an assignment's, a lambda's parameters, a path step's focus and index. */
function boundBy(node: AstNode): unknown[] {
  if (node.type === 'bind') return [variableName(node.lhs)];
  if (node.type === 'lambda' && Array.isArray(node.arguments)) return node.arguments.map(variableName);
  return [node.focus, node.index];
}

function collect(node: AstNode, names: Names): void {
  const called = calledVariable(node);
  const name = variableName(called);
  if (name !== undefined && isNode(called) && typeof called.position === 'number') names.calls.push({ name, position: called.position });
  for (const bound of boundBy(node)) if (typeof bound === 'string') names.bound.add(bound);
}

/** Every call and binding in the tree below `root`, in the tree's order. */
function walk(root: unknown): Names {
  // `$` and `$$` (the input) are always bound.
  const names: Names = { calls: [], bound: new Set(['', '$']) };
  const seen = new Set<unknown>();
  const pending = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    if (isNode(value)) collect(value, names);
    // One push a value: spreading a node's 200,000-element array would overflow the stack.
    const children = Object.values(value) as unknown[];
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
  return names;
}

function describe(call: Call, expression: string, candidates: readonly string[]): string {
  // JSONata's position is just past the name: the call starts at its `$`.
  const { line, column } = locate(expression, Math.max(0, call.position - call.name.length - 1));
  const meant = closestMatch(call.name, candidates);
  const why = meant === undefined ? ' (not JSONata\'s, not loom\'s, not bound in the expression)' : `; did you mean $${meant}?`;
  return `line ${line}, column ${column}: $${call.name} is not a function${why}`;
}

/**
 * One message per call of a function `expression` neither binds nor finds bound (see the module
 * comment), in source order: `line 3, column 10: $uppercas is not a function; did you mean $uppercase?`.
 * None for an expression that does not compile (the syntax check reports it).
 */
export function unknownFunctions(expression: string): string[] {
  let ast: unknown;
  try {
    ast = jsonata(expression).ast();
  } catch {
    return [];
  }
  const { calls, bound } = walk(ast);
  const known = [...boundFunctionNames(), ...bound];
  return calls
    .filter((call) => !known.includes(call.name))
    .sort((a, b) => a.position - b.position)
    .map((call) => describe(call, expression, known));
}

const HOOK_NAMES = ['sync', 'finalize', 'customize', 'preUpdateChild', 'postUpdateChild'] as const;

/** What the check needs of a parsed controller: its hooks, and its child rules' `readyWhen`. */
export interface ExpressionSources {
  hooks: Partial<Record<(typeof HOOK_NAMES)[number], Hook>>;
  childResources?: readonly ChildResourceRule[];
}

/** A problem for each call of an unknown function in an inline hook expression or a child type's `readyWhen`. */
export function functionNameChecks(spec: ExpressionSources): { problems: FieldProblem[]; warnings: FieldProblem[] } {
  const sources = [
    ...HOOK_NAMES.map((name) => ({ path: `spec.hooks.${name}.jsonata.expression`, expression: spec.hooks[name]?.jsonata?.expression })),
    ...(spec.childResources ?? []).map((rule, i) => ({ path: `spec.childResources[${i}].readyWhen`, expression: rule.readyWhen })),
  ];
  const problems = sources.flatMap(({ path, expression }) => (expression ? unknownFunctions(expression).map((message) => ({ path, message })) : []));
  return { problems, warnings: [] };
}
