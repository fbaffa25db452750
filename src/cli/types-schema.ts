/**
 * A CRD's OpenAPI v3 schema as a TypeScript type, for `loom types`. CRDs of `apiextensions.k8s.io/v1`
 * have structural schemas: every field's type is in `type`/`properties`/`items`/`additionalProperties`
 * and the Kubernetes extensions, while `anyOf`/`oneOf`/`allOf`/`not` only validate further, so they are
 * not read. The text is deterministic (properties in schema order) so that generated files can be
 * compared with a fresh run.
 */
import { isRecord } from '../api/index.ts';

/** One indentation step of the generated code. */
export const INDENT = '  ';

/** `'text'`, escaped for a single-quoted TypeScript string. */
export function quote(text: string): string {
  return `'${text.replace(/[\\']/g, '\\$&').replace(/\n/g, '\\n')}'`;
}

/** A property name as TypeScript accepts it: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : quote(name);
}

/** A JSON value as a TypeScript literal type (strings single-quoted, the repository's style). */
function literal(value: unknown): string {
  return typeof value === 'string' ? quote(value) : JSON.stringify(value);
}

/**
 * A JSDoc comment for a description and a default, one line per line of text, at `indent`; `''`
 * when there is neither. A default matters to a hook: the API server fills it in, so a parent read
 * back has the field even though a desired object may leave it out.
 */
export function jsDoc(description: unknown, defaultValue: unknown, indent: string): string {
  const text = typeof description === 'string' ? description.trim().split('\n').map((line) => line.trimEnd()) : [];
  const lines = [...text, ...(defaultValue === undefined ? [] : [`@default ${JSON.stringify(defaultValue)}`])]
    .map((line) => line.replaceAll('*/', '*\\/'));
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line ? ` ${line}` : ''}`).join('\n')}\n${indent} */\n`;
}

/** Whether `type` is a union at its top level (outside braces, brackets and parentheses). */
function isUnion(type: string): boolean {
  let depth = 0;
  for (const char of type) {
    if ('{[(<'.includes(char)) depth++;
    else if ('}])>'.includes(char)) depth--;
    else if (char === '|' && depth === 0) return true;
  }
  return false;
}

function arrayOf(item: string): string {
  return isUnion(item) ? `(${item})[]` : `${item}[]`;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** One `name?: type;` line of an object type, with its JSDoc. */
function propertyLine(name: string, schema: unknown, required: boolean, indent: string): string {
  const doc = isRecord(schema) ? jsDoc(schema.description, schema.default, indent) : '';
  return `${doc}${indent}${propertyKey(name)}${required ? '' : '?'}: ${schemaType(schema, indent)};`;
}

/** What an embedded object (`x-kubernetes-embedded-resource`) has even when its schema does not say. */
const EMBEDDED_FIELDS = [['apiVersion', 'string'], ['kind', 'string'], ['metadata', 'Record<string, unknown>']] as const;

/**
 * The extra members an object type gets: an index signature where fields outside `properties` are
 * kept (`x-kubernetes-preserve-unknown-fields`, or `additionalProperties` next to `properties`), and
 * the identifying fields of an embedded object (`x-kubernetes-embedded-resource`).
 */
function extraMembers(schema: Record<string, unknown>, properties: Record<string, unknown>, indent: string): string[] {
  const embedded = schema['x-kubernetes-embedded-resource'] === true
    ? EMBEDDED_FIELDS.filter(([name]) => !(name in properties)).map(([name, type]) => `${name}?: ${type};`)
    : [];
  const open = schema['x-kubernetes-preserve-unknown-fields'] === true || (schema.additionalProperties ?? false) !== false;
  return [...embedded, ...(open ? ['[field: string]: unknown;'] : [])].map((line) => indent + line);
}

/** An object without `properties`: a map, anything, or nothing at all (the API server prunes every field). */
function mapType(schema: Record<string, unknown>, indent: string): string {
  const values = schema.additionalProperties;
  if (isRecord(values)) return `Record<string, ${schemaType(values, indent)}>`;
  if (values === true || schema['x-kubernetes-preserve-unknown-fields'] === true) return 'Record<string, unknown>';
  return 'Record<string, never>';
}

function objectType(schema: Record<string, unknown>, indent: string): string {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const names = Object.keys(properties);
  if (names.length === 0 && schema['x-kubernetes-embedded-resource'] !== true) return mapType(schema, indent);
  const inner = indent + INDENT;
  const required = strings(schema.required);
  const lines = names.map((name) => propertyLine(name, properties[name], required.includes(name), inner));
  return `{\n${[...lines, ...extraMembers(schema, properties, inner)].join('\n')}\n${indent}}`;
}

/** The type of a schema by its `type` (a schema with `properties` but no `type` is an object). */
function typeByName(schema: Record<string, unknown>, indent: string): string {
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return arrayOf(schema.items === undefined ? 'unknown' : schemaType(schema.items, indent));
    case 'object':
      return objectType(schema, indent);
    default:
      return isRecord(schema.properties) ? objectType(schema, indent) : 'unknown';
  }
}

/** The type of a schema before `nullable`: its enum, int-or-string, or its `type`. */
function baseType(schema: Record<string, unknown>, indent: string): string {
  if (schema['x-kubernetes-int-or-string'] === true) return 'number | string';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return [...new Set(schema.enum.map(literal))].join(' | ');
  return typeByName(schema, indent);
}

/**
 * The TypeScript type of an OpenAPI v3 schema, laid out for a position indented by `indent` (object
 * types span lines). A schema that says nothing is `unknown`.
 */
export function schemaType(schema: unknown, indent = ''): string {
  if (!isRecord(schema)) return 'unknown';
  const type = baseType(schema, indent);
  // An enum of a nullable field lists `null` itself.
  const addNull = schema.nullable === true && type !== 'unknown' && !(Array.isArray(schema.enum) && schema.enum.includes(null));
  return addNull ? `${type} | null` : type;
}
