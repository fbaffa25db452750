/**
 * Turns what a JSONata expression returned into what a webhook would have sent: plain JSON. JSONata's
 * values are JSON plus things JSON cannot carry: functions (a lambda, a regex, a built-in), sequences
 * (arrays flagged with `sequence`, `keepSingleton`, …) and, from a JS helper, non-finite numbers. A
 * copy also keeps the caller from sharing objects with the request the expression was given.
 */

/** Deeper than this is certainly a runaway (or a cycle in the input); real responses nest far less. */
const MAX_NESTING = 1_000;

/** Why a value is not JSON, and where (path segments from the root, filled in while unwinding). */
class NotJson extends Error {
  readonly path: (string | number)[] = [];
}

function formatPath(path: readonly (string | number)[]): string {
  return path.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : `${i === 0 ? '' : '.'}${segment}`)).join('');
}

/** Sets `key` as an own field even when it is `__proto__`, as `JSON.parse` would. */
function setField(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function copyArray(value: readonly unknown[], depth: number): unknown[] {
  const out = new Array<unknown>(value.length);
  for (let i = 0; i < value.length; i++) {
    try {
      // A hole or `undefined` becomes null, as in JSON.stringify.
      out[i] = value[i] === undefined ? null : plainJson(value[i], depth + 1);
    } catch (err) {
      if (err instanceof NotJson) err.path.unshift(i);
      throw err;
    }
  }
  return out;
}

function copyObject(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = value[key];
    // An absent field: JSONata drops `undefined` fields itself; a JS helper's result might not.
    if (field === undefined) continue;
    try {
      setField(out, key, plainJson(field, depth + 1));
    } catch (err) {
      if (err instanceof NotJson) err.path.unshift(key);
      throw err;
    }
  }
  return out;
}

/** JSONata's lambdas and built-ins are objects flagged like this (its own `isFunction` test); a JS function is typeof 'function'. */
function isJsonataFunction(value: object): boolean {
  const flags = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return flags._jsonata_function === true || flags._jsonata_lambda === true;
}

function plainJson(value: unknown, depth: number): unknown {
  if (depth > MAX_NESTING) throw new NotJson(`nests deeper than ${MAX_NESTING} levels`);
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJson(`is ${value}, which JSON cannot represent`);
    return value;
  }
  if (typeof value !== 'object') throw new NotJson(`is ${kindOf(value)}`);
  if (isJsonataFunction(value)) throw new NotJson('is a function');
  return Array.isArray(value) ? copyArray(value, depth) : copyObject(value as Record<string, unknown>, depth);
}

/** "a function", "an array", … for messages. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function' || (typeof value === 'object' && isJsonataFunction(value))) return 'a function';
  return `a ${typeof value}`;
}

/**
 * The hook response that `result` stands for, as fresh plain JSON, or the reason it is not one:
 * `undefined` (the expression produced nothing) is the empty response `{}`; anything but an object at
 * the top, or a value JSON cannot carry anywhere inside, is not a response. The reason names the path
 * (`"children[0].spec.template is a function"`); the caller adds which hook.
 */
export function toResponse(result: unknown): { response: Record<string, unknown> } | { problem: string } {
  if (result === undefined) return { response: {} };
  if (typeof result !== 'object' || result === null || Array.isArray(result) || isJsonataFunction(result)) {
    return { problem: `expected an object, got ${kindOf(result)}` };
  }
  try {
    return { response: plainJson(result, 0) as Record<string, unknown> };
  } catch (err) {
    if (!(err instanceof NotJson)) throw err;
    return { problem: err.path.length === 0 ? `the result ${err.message}` : `${formatPath(err.path)} ${err.message}` };
  }
}
