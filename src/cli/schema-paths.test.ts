import { describe, expect, it } from 'vitest';
import { lookupPath, objectSchema } from './schema-paths.ts';

const website = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        message: { type: 'string' },
        replicas: { type: 'integer' },
        ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' }, name: { type: 'string' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        extra: { type: 'object' },
        size: { 'x-kubernetes-int-or-string': true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

describe('lookupPath', () => {
  it('finds fields, and steps into an array’s items', () => {
    expect(lookupPath(website, ['spec', 'message'])).toEqual({ found: true });
    expect(lookupPath(website, ['spec', 'ports', 'port'])).toEqual({ found: true });
  });

  it('names the first step that is no field, with the fields there', () => {
    expect(lookupPath(website, ['spec', 'mesage', 'x'])).toEqual({
      found: false, at: 1, reason: 'missing', fields: ['message', 'replicas', 'ports', 'labels', 'config', 'extra', 'size'],
    });
    expect(lookupPath(website, ['spec', 'ports', 'prot'])).toEqual({ found: false, at: 2, reason: 'missing', fields: ['port', 'name'] });
  });

  it('names a step into a scalar, with its type', () => {
    expect(lookupPath(website, ['spec', 'replicas', 'value'])).toEqual({ found: false, at: 2, reason: 'scalar', type: 'integer' });
  });

  it('says nothing below a part that allows anything', () => {
    expect(lookupPath(website, ['spec', 'labels', 'anything', 'deeper'])).toEqual({ found: true });
    expect(lookupPath(website, ['spec', 'config', 'x', 'y'])).toEqual({ found: true });
    expect(lookupPath(website, ['spec', 'extra', 'x'])).toEqual({ found: true });
    expect(lookupPath(website, ['spec', 'size', 'x'])).toEqual({ found: true });
    expect(lookupPath({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } }, ['b'])).toEqual({ found: true });
  });

  it('says nothing where the schema is not a schema', () => {
    expect(lookupPath(undefined, ['a'])).toEqual({ found: true });
    expect(lookupPath({ type: 'object', properties: { a: 'nonsense' } }, ['a', 'b'])).toEqual({ found: true });
  });
});

describe('objectSchema', () => {
  it('adds apiVersion, kind and ObjectMeta’s fields to a CRD’s schema', () => {
    const schema = objectSchema(website);
    expect(lookupPath(schema, ['apiVersion'])).toEqual({ found: true });
    expect(lookupPath(schema, ['kind'])).toEqual({ found: true });
    expect(lookupPath(schema, ['metadata', 'labels', 'app'])).toEqual({ found: true });
    expect(lookupPath(schema, ['metadata', 'ownerReferences', 'uid'])).toEqual({ found: true });
    expect(lookupPath(schema, ['metadata', 'nme'])).toMatchObject({ found: false, at: 1, reason: 'missing' });
    expect(lookupPath(schema, ['metadata', 'name', 'x'])).toEqual({ found: false, at: 2, reason: 'scalar', type: 'string' });
  });

  it('takes ObjectMeta over whatever the CRD says of metadata (the API server does)', () => {
    const schema = objectSchema({ ...website, properties: { ...website.properties, metadata: { type: 'object', properties: { name: { type: 'string' } } } } });
    expect(lookupPath(schema, ['metadata', 'namespace'])).toEqual({ found: true });
  });

  it('keeps a root that allows anything open', () => {
    expect(lookupPath(objectSchema({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }), ['spec', 'x'])).toEqual({ found: true });
    expect(lookupPath(objectSchema({ type: 'object' }), ['spec', 'x'])).toEqual({ found: true });
  });
});
