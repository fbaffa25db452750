/**
 * The generated type of one Kubernetes object type (a CRD version or a built-in kind), for `loom
 * types`: an interface extending the SDK's `KubeObject` with `apiVersion` and `kind` as literal types,
 * so that a union of object types is discriminated by them and the SDK's `desired<T>()` checks the
 * fields of exactly the kind it builds.
 */
import { INDENT, propertyKey, quote } from './types-schema.ts';

/** An object type's generated declarations, and what the controllers' aliases refer to. */
export interface ObjectType {
  apiVersion: string;
  kind: string;
  /** The TypeScript name of the object's interface. */
  name: string;
  /** The name of its `status` type, when its schema has one (a composite's response is typed with it). */
  status?: string | undefined;
  /** Named field types first, then the interface. */
  declarations: string[];
}

/** One top-level field of an object type besides `apiVersion`, `kind` and `metadata`. */
export interface ObjectField {
  name: string;
  type: string;
  required: boolean;
}

/** `hello-controller` → `HelloController`, `v1beta1` → `V1beta1`, `expected_copies` → `ExpectedCopies`. */
export function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const name = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
  // A name must not start with a digit (`1-controller`).
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/** `export interface <name> extends KubeObject { apiVersion: '…'; kind: '…'; fields… }`, after `doc`. */
export function objectInterface(type: Pick<ObjectType, 'name' | 'apiVersion' | 'kind'>, doc: string, fields: readonly ObjectField[]): string {
  const lines = [
    `apiVersion: ${quote(type.apiVersion)};`,
    `kind: ${quote(type.kind)};`,
    ...fields.map((field) => `${propertyKey(field.name)}${field.required ? '' : '?'}: ${field.type};`),
  ];
  return `${doc}export interface ${type.name} extends KubeObject {\n${lines.map((line) => INDENT + line).join('\n')}\n}`;
}
