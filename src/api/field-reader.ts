/**
 * Reads untrusted JSON (a controller manifest, a hook response) field by field, collecting every
 * problem with its field path instead of stopping at the first. `null` counts as absent, as it does
 * for Go's decoder and for the API server's pruning of non-nullable fields.
 */
import { closestMatch } from './did-you-mean.ts';
import { isRecord } from './json-value.ts';

/** One thing wrong with the input, at a dotted field path such as `spec.hooks.sync.webhook`. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** Where readers record what they find: errors, and warnings (accepted but worth telling the user). */
export interface ReadReport {
  problems: FieldProblem[];
  warnings: FieldProblem[];
}

/** `path: message`; the root is shown as `(root)`. */
export function formatProblem(problem: FieldProblem): string {
  return `${problem.path || '(root)'}: ${problem.message}`;
}

export { isRecord };

/** Optional properties must be absent rather than `undefined` (exactOptionalPropertyTypes). */
type WithoutUndefined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** A copy of `object` without its `undefined` fields, typed with those fields optional. */
export function omitUndefined<T extends Record<string, unknown>>(object: T): WithoutUndefined<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as WithoutUndefined<T>;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `base.key` for identifier-like keys, `base["odd.key"]` for map keys such as label names. */
export function childPath(base: string, key: string): string {
  if (!IDENTIFIER.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base ? `${base}.${key}` : key;
}

/** Options of {@link FieldReader.string}. */
export interface StringOptions {
  /** Report a missing value. */
  required?: boolean;
  /** Report `""`. */
  nonEmpty?: boolean;
}

/** Options of {@link FieldReader.integer}. */
export interface IntegerOptions {
  required?: boolean;
  min?: number;
  max?: number;
}

/**
 * A cursor on one value of the input. Each typed read returns the value when it has the right type
 * and otherwise records a problem at this path and returns `undefined`, so callers can read a whole
 * document and report everything wrong with it at once.
 */
export class FieldReader {
  /** The value at this path (`undefined` when an ancestor is missing or not an object). */
  readonly value: unknown;
  /** Field path of this value; `''` for the root. */
  readonly path: string;
  readonly #report: ReadReport;
  /** False when the parent is missing or not an object: its absence was reported once already. */
  readonly #parentExists: boolean;

  constructor(value: unknown, path: string, report: ReadReport, parentExists = true) {
    this.value = value;
    this.path = path;
    this.#report = report;
    this.#parentExists = parentExists;
  }

  /** A reader of a whole document, recording into a fresh report. */
  static root(value: unknown): FieldReader {
    return new FieldReader(value, '', { problems: [], warnings: [] });
  }

  /** Everything recorded so far by this reader and every reader derived from it. */
  get report(): ReadReport {
    return this.#report;
  }

  /** Set and not `null`. */
  get present(): boolean {
    return this.value !== undefined && this.value !== null;
  }

  /** The reader of field `key` (absent when this value is not an object or lacks the field). */
  field(key: string): FieldReader {
    const value = isRecord(this.value) && Object.hasOwn(this.value, key) ? this.value[key] : undefined;
    return new FieldReader(value, childPath(this.path, key), this.#report, isRecord(this.value));
  }

  /** Records a problem at this path. Always returns `undefined`, so `return r.problem(...)` reads well. */
  problem(message: string): undefined {
    this.#report.problems.push({ path: this.path, message });
    return undefined;
  }

  /** Records a warning at this path. */
  warn(message: string): void {
    this.#report.warnings.push({ path: this.path, message });
  }

  /**
   * Warns about each field of this object not in `known` (the API server would prune it: likely a
   * typo, so the known field it is nearest is named). `hints` say more about fields users put in
   * the wrong place, by name.
   */
  warnUnknownFields(known: readonly string[], hints: Readonly<Record<string, string>> = {}): void {
    if (!isRecord(this.value)) return;
    for (const key of Object.keys(this.value)) {
      if (known.includes(key)) continue;
      const meant = closestMatch(key, known);
      const hint = Object.hasOwn(hints, key) ? `: ${hints[key]}` : meant === undefined ? '' : ` (did you mean ${meant}?)`;
      this.field(key).warn(`unknown field; ignored${hint}`);
    }
  }

  /** {@link oneOf}, naming the choice a wrong value is nearest (`orphan`: did you mean Orphan?). */
  oneOfSuggesting<T extends string>(allowed: readonly T[]): T | undefined {
    const meant = typeof this.value === 'string' ? closestMatch(this.value, allowed) : undefined;
    if (meant === undefined) return this.oneOf(allowed);
    return this.problem(`expected one of ${allowed.join(', ')}; got ${JSON.stringify(this.value)} (did you mean ${meant}?)`);
  }

  /** Records "is required" when absent (unless the parent itself is missing); true when present. */
  require(): boolean {
    if (!this.present) this.#missing();
    return this.present;
  }

  #missing(): undefined {
    return this.#parentExists ? this.problem('is required') : undefined;
  }

  /** The object here, or `undefined` (with a problem when present but not an object). */
  object(required = false): Record<string, unknown> | undefined {
    if (!this.present) return required ? this.#missing() : undefined;
    return isRecord(this.value) ? this.value : this.problem('expected an object');
  }

  /** The string here. */
  string(options: StringOptions = {}): string | undefined {
    if (!this.present) return options.required ? this.#missing() : undefined;
    if (typeof this.value !== 'string') return this.problem('expected a string');
    if (options.nonEmpty && this.value === '') return this.problem('expected a non-empty string');
    return this.value;
  }

  /** A non-empty string; anything else (missing included) is one "expected a non-empty string" problem. */
  nonEmptyString(): string | undefined {
    if (typeof this.value === 'string' && this.value !== '') return this.value;
    if (!this.present && !this.#parentExists) return undefined;
    return this.problem('expected a non-empty string');
  }

  /** The boolean here. */
  boolean(): boolean | undefined {
    if (!this.present) return undefined;
    return typeof this.value === 'boolean' ? this.value : this.problem('expected a boolean');
  }

  /** The integer here, within `[min, max]` when given. */
  integer(options: IntegerOptions = {}): number | undefined {
    if (!this.present) return options.required ? this.#missing() : undefined;
    if (typeof this.value !== 'number' || !Number.isInteger(this.value)) return this.problem('expected an integer');
    const { min = -(2 ** 31), max = 2 ** 31 - 1 } = options;
    if (this.value < min || this.value > max) return this.problem(`expected an integer from ${min} to ${max}`);
    return this.value;
  }

  /** One of `allowed`, compared case-sensitively. */
  oneOf<T extends string>(allowed: readonly T[], required = false): T | undefined {
    const text = this.string({ required });
    if (text === undefined) return undefined;
    if ((allowed as readonly string[]).includes(text)) return text as T;
    return this.problem(`expected one of ${allowed.join(', ')}; got ${JSON.stringify(text)}`);
  }

  /** Readers of the array items (paths `path[i]`), or `undefined` (with a problem when not an array). */
  items(required = false): FieldReader[] | undefined {
    if (!this.present) return required ? this.#missing() : undefined;
    if (!Array.isArray(this.value)) return this.problem('expected an array');
    return this.value.map((item, i) => new FieldReader(item, `${this.path}[${i}]`, this.#report));
  }

  /** Readers of the object's entries, keyed like {@link field}. */
  entries(): [string, FieldReader][] | undefined {
    const object = this.object();
    if (object === undefined) return undefined;
    return Object.keys(object).map((key) => [key, this.field(key)]);
  }

  /** An array of strings (each bad item reported at its index). */
  stringList(): string[] | undefined {
    const items = this.items();
    if (items === undefined) return undefined;
    const strings = items.map((item) => (typeof item.value === 'string' ? item.value : item.problem('expected a string')));
    return strings.every((s) => s !== undefined) ? strings : undefined;
  }

  /** An object whose values are all strings (each bad value reported at its key). */
  stringMap(): Record<string, string> | undefined {
    const entries = this.entries();
    if (entries === undefined) return undefined;
    // fromEntries defines own properties, so a `__proto__` key stays data instead of a prototype.
    const pairs = entries.map(([key, r]) => [key, typeof r.value === 'string' ? r.value : r.problem('expected a string')] as const);
    return pairs.every(([, v]) => v !== undefined) ? (Object.fromEntries(pairs) as Record<string, string>) : undefined;
  }
}
