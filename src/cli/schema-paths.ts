/**
 * Which field paths an OpenAPI v3 schema (a CRD's `openAPIV3Schema`) has, for the checks that hold a
 * JSONata expression's reads and writes against it. Pure. Only what the schema makes certain is a
 * finding: below a part that allows any field (`x-kubernetes-preserve-unknown-fields`,
 * `additionalProperties`, an object or a value with no declared fields) every path is taken as found.
 */
import { isRecord } from '../api/index.ts';

/** What {@link lookupPath} found. `at` is the index of the first name the schema rules out. */
export type PathLookup =
  | { found: true }
  | { found: false; at: number; reason: 'missing'; fields: string[] }
  | { found: false; at: number; reason: 'scalar'; type: string };

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/** The schema an array's element has, through arrays of arrays; the schema itself when it is no array. */
function elementSchema(schema: Record<string, unknown>): unknown {
  let node: unknown = schema;
  while (isRecord(node) && node.type === 'array') node = node.items;
  return node;
}

/** Whether `schema` lets an object hold fields it does not declare. */
function allowsAnyField(schema: Record<string, unknown>): boolean {
  return schema['x-kubernetes-preserve-unknown-fields'] === true || (schema.additionalProperties !== undefined && schema.additionalProperties !== false);
}

/** One step: the schema of field `name` below `schema`, or what ends the walk there. */
function step(schema: unknown, name: string, at: number): { next: unknown } | PathLookup {
  const node = isRecord(schema) ? elementSchema(schema) : undefined;
  if (!isRecord(node) || allowsAnyField(node)) return { found: true };
  const properties = isRecord(node.properties) ? node.properties : undefined;
  if (properties !== undefined && Object.hasOwn(properties, name)) return { next: properties[name] };
  if (properties !== undefined) return { found: false, at, reason: 'missing', fields: Object.keys(properties) };
  // A scalar has no fields; an object (or an int-or-string) that declares none may hold any.
  if (typeof node.type === 'string' && SCALAR_TYPES.has(node.type)) return { found: false, at, reason: 'scalar', type: node.type };
  return { found: true };
}

/**
 * Whether `names` (`['spec', 'message']`) is a field path of `schema`, reading through arrays as
 * JSONata does (`ports.port` is each port's `port`). Found when the walk reaches a part of the schema
 * that allows anything, or a schema it cannot read.
 */
export function lookupPath(schema: unknown, names: readonly string[]): PathLookup {
  let node = schema;
  for (const [at, name] of names.entries()) {
    const next = step(node, name, at);
    if (!('next' in next)) return next;
    node = next.next;
  }
  return { found: true };
}

const STRING = { type: 'string' } as const;
const STRING_MAP = { type: 'object', additionalProperties: STRING } as const;

/** ObjectMeta's fields, which the API server keeps whatever a CRD's schema says of `metadata`. */
const OBJECT_META = {
  type: 'object',
  properties: {
    name: STRING, generateName: STRING, namespace: STRING, selfLink: STRING, uid: STRING, resourceVersion: STRING,
    generation: { type: 'integer' }, creationTimestamp: STRING, deletionTimestamp: STRING,
    deletionGracePeriodSeconds: { type: 'integer' }, labels: STRING_MAP, annotations: STRING_MAP,
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        properties: { apiVersion: STRING, kind: STRING, name: STRING, uid: STRING, controller: { type: 'boolean' }, blockOwnerDeletion: { type: 'boolean' } },
      },
    },
    finalizers: { type: 'array', items: STRING },
    managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  },
} as const;

/**
 * The schema of a whole object of a CRD whose `openAPIV3Schema` is `root`: `apiVersion`, `kind` and
 * ObjectMeta's `metadata` added, as every object of any kind has them. A root that declares no field
 * stays as it is: nothing below it is certain.
 */
export function objectSchema(root: Record<string, unknown>): Record<string, unknown> {
  const { properties } = root;
  // A root that declares no fields says nothing certain of any.
  if (!isRecord(properties)) return root;
  return { ...root, properties: { ...properties, apiVersion: STRING, kind: STRING, metadata: OBJECT_META } };
}
