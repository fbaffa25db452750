/**
 * A builder for desired children and attachments: the identifying fields flat, everything else
 * (`spec`, `data`, ...) passed through, so a child reads as one short object literal.
 */
import type { KubeObject, ObjectMeta } from './types.ts';

/** Input of {@link desired}: `name`, `namespace`, `labels` and `annotations` go to `metadata`. */
export interface DesiredObject {
  apiVersion: string;
  kind: string;
  name: string;
  /** Absent: the parent's namespace (loom fills it in); give it for a cluster-scoped parent. */
  namespace?: string | undefined;
  labels?: Record<string, string> | undefined;
  annotations?: Record<string, string> | undefined;
  /** Any other metadata (`finalizers`, ...); the flat fields above win over the same keys here. */
  metadata?: ObjectMeta;
  /** Every other field (`spec`, `data`, `stringData`, ...), copied as it is. */
  [field: string]: unknown;
}

/** The fields {@link desired} takes flat, whatever the kind. */
type FlatMetadata = Pick<DesiredObject, 'name' | 'namespace' | 'labels' | 'annotations' | 'metadata'>;

/**
 * The named fields of `T` but `metadata`: a `KubeObject`'s index signature dropped, so that an object
 * literal with a misspelt field is an error instead of an unknown field.
 */
type NamedFields<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K extends 'metadata' ? never : K]: T[K] };

/** One object type, for the editor's display (`{ a; b }` rather than an intersection of helpers). */
type Flatten<T> = { [K in keyof T]: T[K] };

/**
 * The input of {@link desired} for the object type `T` (`loom types` generates such types): `T`'s own
 * fields exactly, with `name`, `namespace`, `labels` and `annotations` flat. For a union it is the
 * union of each member's input, so `kind` picks the fields.
 */
export type DesiredOf<T extends KubeObject> = T extends KubeObject ? Flatten<NamedFields<T> & FlatMetadata> : never;

/** Checked as {@link DesiredOf} when `T`'s kind is known (a literal type), else the loose {@link DesiredObject}. */
type DesiredInput<T extends KubeObject> = string extends T['kind'] ? DesiredObject : DesiredOf<T>;

/**
 * A desired object: `desired({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', data: { a: 'b' } })`
 * is `{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } }`.
 * Fields given as `undefined` are left out.
 *
 * Typed: `desired<ConfigMap>({ … })` checks the input against a `ConfigMap` type whose `kind` is a
 * literal (see {@link DesiredOf}), and so does a plain `desired({ … })` where the result's type is
 * expected to be one, such as a generated response's `children`. `T` is never inferred from the input
 * (`NoInfer`): the input is what is checked, so it must not decide the type it is checked against.
 */
export function desired<T extends KubeObject = KubeObject>(input: NoInfer<DesiredInput<T>>): T {
  const { apiVersion, kind, name, namespace, labels, annotations, metadata, ...rest } = input;
  const flat = Object.entries({ name, namespace, labels, annotations }).filter(([, value]) => value !== undefined);
  const object: KubeObject = { apiVersion, kind, metadata: { ...metadata, ...Object.fromEntries(flat) }, ...rest };
  // A `T`: the input was checked against `T`'s fields, and only the metadata moved.
  return object as T;
}
