/**
 * The field-level diff `loom render` prints for a child it would update: one line per changed leaf,
 * addressed by a path a user can read and search for, values as compact JSON.
 *
 * Format (stable; tests compare it exactly):
 * - changed: `spec.replicas: 2 → 3`
 * - added:   `+ data.extra: "1"`
 * - removed: `- metadata.labels.old: "x"`
 * Paths: `a.b` for identifier-like keys, `a["example.com/x"]` for others (label and annotation
 * names), `a[0]` for list items. Lists are compared item by item. An added or removed object or
 * list is spelled out leaf by leaf; an empty one is one line (`{}`, `[]`). The last-applied
 * annotation of dynamic apply is bookkeeping, a whole JSON document in a string: its lines say
 * `(added)`, `(updated)` or `(removed)` instead of quoting it.
 */
import { isRecord, jsonEqual, LAST_APPLIED_ANNOTATION } from '../api/index.ts';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const BOOKKEEPING = `metadata.annotations[${JSON.stringify(LAST_APPLIED_ANNOTATION)}]`;

function keyPath(base: string, key: string): string {
  if (!IDENTIFIER.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base ? `${base}.${key}` : key;
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

/** Every leaf below `value` with its path; an empty object or list is a leaf itself. */
function leaves(path: string, value: unknown): [string, unknown][] {
  if (Array.isArray(value) && value.length > 0) return value.flatMap((item, i) => leaves(`${path}[${i}]`, item));
  if (isRecord(value) && Object.keys(value).length > 0) return Object.entries(value).flatMap(([k, v]) => leaves(keyPath(path, k), v));
  return [[path, value]];
}

function oneSided(sign: '+' | '-', path: string, value: unknown): string[] {
  return leaves(path, value).map(([leaf, v]) => `${sign} ${leaf}: ${leaf === BOOKKEEPING ? `(${sign === '+' ? 'added' : 'removed'})` : show(v)}`);
}

function changed(path: string, before: unknown, after: unknown): string[] {
  if (path === BOOKKEEPING) return [`${path}: (updated)`];
  return [`${path}: ${show(before)} → ${show(after)}`];
}

function diffRecords(path: string, before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = [...Object.keys(before), ...Object.keys(after).filter((k) => !Object.hasOwn(before, k))];
  return keys.flatMap((key) => diffAt(keyPath(path, key), Object.hasOwn(before, key) ? before[key] : undefined, Object.hasOwn(after, key) ? after[key] : undefined));
}

function diffLists(path: string, before: unknown[], after: unknown[]): string[] {
  const length = Math.max(before.length, after.length);
  return Array.from({ length }, (_, i) => diffAt(`${path}[${i}]`, before[i], after[i])).flat();
}

function diffAt(path: string, before: unknown, after: unknown): string[] {
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return oneSided('+', path, after);
  if (after === undefined) return oneSided('-', path, before);
  if (jsonEqual(before, after)) return [];
  if (isRecord(before) && isRecord(after)) return diffRecords(path, before, after);
  if (Array.isArray(before) && Array.isArray(after)) return diffLists(path, before, after);
  return changed(path, before, after);
}

/** The lines that take `before` to `after` (both plain JSON objects); `[]` when they are equal. */
export function diffPaths(before: unknown, after: unknown): string[] {
  return diffAt('', before, after);
}
