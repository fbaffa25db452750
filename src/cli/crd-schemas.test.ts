import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { crdSchema, readProblem } from './crd-schemas.ts';

const CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'websites.example.com' },
  spec: {
    group: 'example.com', names: { kind: 'Website', plural: 'websites' },
    versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { message: { type: 'string' } } } } } } }],
  },
};

describe('crdSchema', () => {
  it('finds the schema of the rule’s group, plural and version', () => {
    expect(crdSchema({ apiVersion: 'example.com/v1', resource: 'websites' }, [CRD])?.title).toBe('Website (example.com/v1)');
  });

  it('finds none for another group, plural or version', () => {
    for (const rule of [{ apiVersion: 'example.org/v1', resource: 'websites' }, { apiVersion: 'example.com/v1', resource: 'website' }, { apiVersion: 'example.com/v2', resource: 'websites' }]) {
      expect(crdSchema(rule, [CRD])).toBeUndefined();
    }
  });
});

describe('readProblem', () => {
  const website = crdSchema({ apiVersion: 'example.com/v1', resource: 'websites' }, [CRD])!;

  it('says why a read finds nothing, at the name that fails', () => {
    expect(readProblem(['spec', 'mesage'], website)).toEqual({ at: 1, why: 'no such field in Website (example.com/v1), so this reads nothing (did you mean message?)' });
    expect(readProblem(['spec', 'message', 'x'], website)).toEqual({ at: 2, why: 'spec.message is a string in Website (example.com/v1), so this reads nothing' });
    expect(readProblem(['metadata', 'name'], website)).toBeUndefined();
  });

  it('says nothing below a wildcard', () => {
    expect(readProblem(['spec', '*', 'nope'], website)).toBeUndefined();
    expect(readProblem(['*', 'nope'], website)).toBeUndefined();
  });
});
