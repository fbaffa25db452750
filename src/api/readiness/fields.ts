/**
 * Reading fields of an object whose shape nobody vouches for. The readiness rules see whatever a
 * cache or a hook holds, so a field of the wrong type reads as missing (as kstatus's field readers
 * treat it) and nothing here throws or walks more than once over an array.
 */
import { isRecord } from '../json-value.ts';

/** The value at `path` under `obj`, or `undefined` when any step is missing or not an object. */
export function fieldAt(obj: unknown, path: readonly string[]): unknown {
  let value = obj;
  for (const key of path) {
    if (!isRecord(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** The whole number at `path`, else `fallback` (a string such as `"3"` is not a number). */
export function intAt(obj: unknown, path: readonly string[], fallback: number): number {
  const value = fieldAt(obj, path);
  return Number.isSafeInteger(value) ? (value as number) : fallback;
}

/** Whether a whole number is at `path`. */
export function hasIntAt(obj: unknown, path: readonly string[]): boolean {
  return Number.isSafeInteger(fieldAt(obj, path));
}

/** The string at `path`, else `fallback`. */
export function stringAt(obj: unknown, path: readonly string[], fallback: string): string {
  const value = fieldAt(obj, path);
  return typeof value === 'string' ? value : fallback;
}

/** The boolean at `path`, else `fallback`. */
export function boolAt(obj: unknown, path: readonly string[], fallback: boolean): boolean {
  const value = fieldAt(obj, path);
  return typeof value === 'boolean' ? value : fallback;
}

/** A `status.conditions[]` entry, its fields as strings (`''` when missing or not a string). */
export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The entries of `status.conditions` that are objects, in their order; none when it is not an array. */
export function conditionsOf(obj: unknown): Condition[] {
  const conditions = fieldAt(obj, ['status', 'conditions']);
  if (!Array.isArray(conditions)) return [];
  const found: Condition[] = [];
  for (const c of conditions as unknown[]) {
    if (isRecord(c)) found.push({ type: text(c.type), status: text(c.status), reason: text(c.reason), message: text(c.message) });
  }
  return found;
}

/** The first `status.conditions[]` entry of `type`, if the object has one. */
export function conditionOf(obj: unknown, type: string): Condition | undefined {
  return conditionsOf(obj).find((c) => c.type === type);
}

/** Longest text a message repeats from the object: a hostile object must not make every message huge. */
const MAX_QUOTED = 240;

/** `text` cut to a length a message can carry. */
export function clip(text: string): string {
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text;
}

/** A condition for a message: `Type is Status`, then its reason and message when it has them. */
export function describeCondition(condition: Condition): string {
  const words = clip([condition.reason, condition.message].filter((w) => w !== '').join(': '));
  const state = `${clip(condition.type)} is ${clip(condition.status) || 'not set'}`;
  return words === '' ? state : `${state} (${words})`;
}
