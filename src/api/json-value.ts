/**
 * Plain JSON values as loom compares, hashes and inspects them: one canonical text, one structural
 * equality and one object check for every layer (core, hooks, cli), so they can never disagree.
 */

/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Orders strings by UTF-16 code unit, the order `Array.prototype.sort` uses without a comparator. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/**
 * JSON text with object keys sorted at every level and no whitespace. Members that JSON cannot hold
 * (`undefined`, functions such as JSONata lambdas) are left out of objects and written as `null` in
 * arrays, as `JSON.stringify` does. Equal JSON trees give equal text whatever their key order, so the
 * text can be hashed or compared byte for byte.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (isRecord(value)) {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined && typeof member !== 'function')
      .sort(([a], [b]) => compareStrings(a, b))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return typeof value === 'function' ? 'null' : (JSON.stringify(value) ?? 'null');
}

/** Structural equality of JSON values: object key order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}
