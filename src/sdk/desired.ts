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

/**
 * A desired object: `desired({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', data: { a: 'b' } })`
 * is `{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } }`.
 * Fields given as `undefined` are left out.
 */
export function desired(input: DesiredObject): KubeObject {
  const { apiVersion, kind, name, namespace, labels, annotations, metadata, ...rest } = input;
  const flat = Object.entries({ name, namespace, labels, annotations }).filter(([, value]) => value !== undefined);
  return { apiVersion, kind, metadata: { ...metadata, ...Object.fromEntries(flat) }, ...rest };
}
