/**
 * The objects a JSONata hook answers literally: object constructors whose keys include `apiVersion`,
 * `kind` and `metadata` and whose `kind` is a string literal, in what the expression builds for its
 * answer's `children` (or `attachments`). Those three keys together tell a Kubernetes object from a
 * reference to one (an HPA's `scaleTargetRef` has `apiVersion` and `kind` but no `metadata`), so
 * `loom validate` can check what a hook would create against what the controller declares, without
 * running it.
 */
import jsonata from 'jsonata';
import { locate } from '../hooks/index.ts';

/**
 * One literal object: its kind, its apiVersion, name and annotations as far as they are literals
 * too (only annotations whose key and value are string literals), and where it starts.
 */
export interface LiteralObject {
  kind: string;
  apiVersion?: string | undefined;
  line: number;
  column: number;
  name?: string;
  annotations?: Record<string, string>;
  /** Set when some annotations (or all of them) are computed: `annotations` holds only the literal ones. */
  computedAnnotations?: true;
}

interface AstNode {
  type?: string;
  value?: unknown;
  position?: number;
  lhs?: unknown;
}

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The string literal of the `key` entry of an object constructor's `[key, value]` pairs, if any. */
function literalEntry(pairs: readonly unknown[], key: string): string | undefined | null {
  for (const pair of pairs) {
    if (!Array.isArray(pair)) continue;
    const [name, value] = pair as unknown[];
    if (!isNode(name) || name.type !== 'string' || name.value !== key) continue;
    return isNode(value) && value.type === 'string' && typeof value.value === 'string' ? value.value : null;
  }
  return undefined;
}

/** The `[key, value]` pairs of an object constructor, or `undefined` when `node` is none. */
function pairsOf(node: unknown): unknown[] | undefined {
  return isNode(node) && node.type === 'unary' && node.value === '{' && Array.isArray(node.lhs) ? (node.lhs as unknown[]) : undefined;
}

/** The value expression of the `key` entry of an object constructor's pairs. */
function valueAt(pairs: readonly unknown[], key: string): unknown {
  const pair = pairs.find((p) => Array.isArray(p) && isNode(p[0]) && p[0].type === 'string' && p[0].value === key) as unknown[] | undefined;
  return pair?.[1];
}

function isStringLiteral(node: unknown): node is AstNode & { value: string } {
  return isNode(node) && node.type === 'string' && typeof node.value === 'string';
}

/** The entries of an object constructor whose keys and values are both string literals, and whether it has others. */
function stringEntries(pairs: readonly unknown[]): { entries: Record<string, string>; computed: boolean } {
  const literal = pairs.flatMap((pair) => {
    const [name, value] = Array.isArray(pair) ? (pair as unknown[]) : [];
    return isStringLiteral(name) && isStringLiteral(value) ? [[name.value, value.value] as const] : [];
  });
  // fromEntries defines own properties, so a `__proto__` key stays data.
  return { entries: Object.fromEntries(literal), computed: literal.length < pairs.length };
}

/** The literal annotations of a `metadata` constructor, and whether some are computed. */
function literalAnnotations(metadata: readonly unknown[]): Pick<LiteralObject, 'annotations' | 'computedAnnotations'> {
  const value = valueAt(metadata, 'annotations');
  if (value === undefined) return {};
  const pairs = pairsOf(value);
  const { entries, computed } = pairs === undefined ? { entries: {}, computed: true } : stringEntries(pairs);
  return { ...(Object.keys(entries).length > 0 && { annotations: entries }), ...(computed && { computedAnnotations: true as const }) };
}

/** The literal name and annotations of an object's `metadata` constructor, each only when present. */
function literalMetadata(pairs: readonly unknown[]): Pick<LiteralObject, 'name' | 'annotations' | 'computedAnnotations'> {
  const metadata = pairsOf(valueAt(pairs, 'metadata'));
  if (metadata === undefined) return {};
  const name = literalEntry(metadata, 'name');
  return { ...(typeof name === 'string' && { name }), ...literalAnnotations(metadata) };
}

/** Line and column (1-based) of `offset` in `text`, as every place `loom validate` names in an expression. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const { line, column } = locate(text, Math.max(0, offset));
  return { line, column };
}

function hasKey(pairs: readonly unknown[], key: string): boolean {
  return literalEntry(pairs, key) !== undefined;
}

/** The object `node` builds when it is a literal Kubernetes object (see the module comment). */
function literalObjectAt(node: AstNode, expression: string): LiteralObject | undefined {
  if (node.type !== 'unary' || node.value !== '{' || !Array.isArray(node.lhs)) return undefined;
  const pairs = node.lhs as unknown[];
  const kind = literalEntry(pairs, 'kind');
  if (typeof kind !== 'string' || !hasKey(pairs, 'apiVersion') || !hasKey(pairs, 'metadata')) return undefined;
  // JSONata's position is just past the token that opened the object.
  return {
    kind, apiVersion: literalEntry(pairs, 'apiVersion') ?? undefined, ...lineAndColumn(expression, (node.position ?? 1) - 1), ...literalMetadata(pairs),
  };
}

/** The value expressions of an object constructor's `field` entries (string-literal keys only). */
function entriesNamed(node: AstNode, field: string): unknown[] {
  if (node.type !== 'unary' || node.value !== '{' || !Array.isArray(node.lhs)) return [];
  return (node.lhs as unknown[]).flatMap((pair) => {
    if (!Array.isArray(pair)) return [];
    const [name, value] = pair as unknown[];
    return isNode(name) && name.type === 'string' && name.value === field ? [value] : [];
  });
}

/** A value of the AST still to visit, and whether it builds the answer's field. */
interface Visit {
  value: unknown;
  answered: boolean;
}

/**
 * The literal Kubernetes objects an expression answers in `field` (`children`, `attachments`): those
 * in the expressions that build that field's value, wherever they sit there (an array, a `$map`
 * lambda, a condition), but not objects nested in one of them (a manifest a child embeds) nor those
 * elsewhere in the answer (its status). None when it does not compile (that is reported elsewhere).
 */
export function literalObjects(expression: string, field: string): LiteralObject[] {
  let ast: unknown;
  try {
    ast = jsonata(expression).ast();
  } catch {
    return [];
  }
  // A walk with a stack of its own, not recursion: an expression nested as deeply as JSONata's parser
  // allows would overflow the call stack here, and `loom validate` would end on a RangeError.
  const found: LiteralObject[] = [];
  const pending: Visit[] = [{ value: ast, answered: false }];
  const push = (values: readonly unknown[], answered: boolean): void => {
    for (let i = values.length - 1; i >= 0; i--) pending.push({ value: values[i], answered });
  };
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value, answered } = visit;
    if (Array.isArray(value)) push(value, answered);
    else if (isNode(value)) visitNode(value, answered);
  }
  function visitNode(node: AstNode, answered: boolean): void {
    // In the answer's field: a literal object is found and not searched further; anything else is searched.
    const object = answered ? literalObjectAt(node, expression) : undefined;
    if (object) return void found.push(object);
    const entries = answered ? [] : entriesNamed(node, field);
    if (entries.length > 0) push(entries, true);
    else push(Object.values(node), answered);
  }
  return found;
}
