import { describe, expect, it } from 'vitest';
import { jsDoc, propertyKey, quote, schemaType } from './types-schema.ts';

describe('schemaType', () => {
  it.each([
    ['a string', { type: 'string' }, 'string'],
    ['a date-time (still a string on the wire)', { type: 'string', format: 'date-time' }, 'string'],
    ['an integer', { type: 'integer', format: 'int32' }, 'number'],
    ['a number', { type: 'number' }, 'number'],
    ['a boolean', { type: 'boolean' }, 'boolean'],
    ['an enum', { type: 'string', enum: ['Always', "It's"] }, "'Always' | 'It\\'s'"],
    ['a numeric enum', { type: 'integer', enum: [1, 2] }, '1 | 2'],
    ['int-or-string', { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }, 'number | string'],
    ['nullable', { type: 'string', nullable: true }, 'string | null'],
    ['a nullable enum listing null', { type: 'string', nullable: true, enum: ['a', null, 'a'] }, "'a' | null"],
    ['an array', { type: 'array', items: { type: 'string' } }, 'string[]'],
    ['an array of a union', { type: 'array', items: { type: 'string', enum: ['a', 'b'] } }, "('a' | 'b')[]"],
    ['an array without items', { type: 'array' }, 'unknown[]'],
    ['a map', { type: 'object', additionalProperties: { type: 'integer' } }, 'Record<string, number>'],
    ['a map of anything', { type: 'object', additionalProperties: true }, 'Record<string, unknown>'],
    ['an object keeping unknown fields', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 'Record<string, unknown>'],
    ['an object the API server empties', { type: 'object' }, 'Record<string, never>'],
    ['anything', { 'x-kubernetes-preserve-unknown-fields': true }, 'unknown'],
    ['nothing said', {}, 'unknown'],
    ['not a schema', 'string', 'unknown'],
  ])('%s', (_case, schema, expected) => {
    expect(schemaType(schema)).toBe(expected);
  });

  it('writes an object with its required fields required and the rest optional, in schema order', () => {
    const schema = { type: 'object', required: ['b'], properties: { b: { type: 'string' }, a: { type: 'integer' } } };
    expect(schemaType(schema)).toBe('{\n  b: string;\n  a?: number;\n}');
  });

  it('indents nested objects, and reads properties without a type as an object', () => {
    const schema = { type: 'object', properties: { outer: { properties: { inner: { type: 'boolean' } } } } };
    expect(schemaType(schema)).toBe('{\n  outer?: {\n    inner?: boolean;\n  };\n}');
  });

  it('documents fields with their description and default', () => {
    const schema = { type: 'object', properties: { replicas: { type: 'integer', default: 1, description: 'How many.\nAt least 0.' }, name: { type: 'string', description: 'One line.' } } };
    expect(schemaType(schema)).toBe('{\n  /**\n   * How many.\n   * At least 0.\n   * @default 1\n   */\n  replicas?: number;\n  /** One line. */\n  name?: string;\n}');
  });

  it('quotes field names that are not identifiers', () => {
    expect(schemaType({ type: 'object', properties: { 'app.kubernetes.io/name': { type: 'string' } } })).toBe("{\n  'app.kubernetes.io/name'?: string;\n}");
  });

  it('keeps unknown fields of an object with properties through an index signature', () => {
    const schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } };
    expect(schemaType(schema)).toBe('{\n  a?: string;\n  [field: string]: unknown;\n}');
  });

  it('gives an embedded object its identifying fields unless the schema has them', () => {
    const schema = { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { kind: { type: 'string', enum: ['Pod'] } } };
    expect(schemaType(schema)).toBe("{\n  kind?: 'Pod';\n  apiVersion?: string;\n  metadata?: Record<string, unknown>;\n}");
  });

  it('makes a nullable object or array nullable as a whole', () => {
    expect(schemaType({ type: 'array', nullable: true, items: { type: 'string' } })).toBe('string[] | null');
    expect(schemaType({ type: 'object', nullable: true, properties: { a: { type: 'string' } } })).toBe('{\n  a?: string;\n} | null');
  });
});

describe('jsDoc', () => {
  it('is empty without a description or a default', () => {
    expect(jsDoc(undefined, undefined, '  ')).toBe('');
  });

  it('cannot be closed early by the text it quotes', () => {
    expect(jsDoc('a */ b', undefined, '')).toBe('/** a *\\/ b */\n');
  });
});

describe('quote and propertyKey', () => {
  it('escape backslashes, quotes and newlines', () => {
    expect(quote("a\\b'c\nd")).toBe("'a\\\\b\\'c\\nd'");
  });

  it.each([['name', 'name'], ['$ref', '$ref'], ['_x1', '_x1'], ['1st', "'1st'"], ['x-y', "'x-y'"]])('%s → %s', (name, key) => {
    expect(propertyKey(name)).toBe(key);
  });
});
