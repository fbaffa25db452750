import { describe, expect, it } from 'vitest';
import type { Hook, KubeObject } from '../api/index.ts';
import { expressionSchemaChecks } from './expression-schemas.ts';

/** A CRD of Website in example.com, served as v1 with `schema`, and as v0 with none. */
function websiteCrd(schema: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'websites.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { kind: 'Website', plural: 'websites' },
      versions: [{ name: 'v0', served: true, storage: false }, { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}

const SCHEMA = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { message: { type: 'string' }, replicas: { type: 'integer' }, extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    status: { type: 'object', properties: { ready: { type: 'boolean' }, conditions: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } } } } },
  },
};
const WEBSITES = [{ apiVersion: 'example.com/v1', resource: 'websites' }];

function jsonata(expression: string): Hook {
  return { version: 'v1', jsonata: { expression, timeoutMs: 1000 } } as unknown as Hook;
}

function check(hooks: Record<string, Hook>, crds: readonly KubeObject[] = [websiteCrd(SCHEMA)], input: 'parent' | 'object' = 'parent') {
  return expressionSchemaChecks({ input, parents: WEBSITES, hooks }, crds);
}

describe('expressionSchemaChecks: reads', () => {
  it('reports a misspelt parent field with its place and a did-you-mean', () => {
    const expression = '{\n  "children": [],\n  "status": { "ready": parent.spec.mesage = "" }\n}';
    expect(check({ sync: jsonata(expression) })).toEqual({
      problems: [{
        path: 'spec.hooks.sync.jsonata.expression',
        message: 'line 3, column 36: parent.spec.mesage: no such field in Website (example.com/v1), so this reads nothing (did you mean message?)',
      }],
      warnings: [],
    });
  });

  it('reports a field of a scalar', () => {
    expect(check({ customize: jsonata('parent.spec.replicas.value') }).problems).toEqual([{
      path: 'spec.hooks.customize.jsonata.expression',
      message: 'line 1, column 22: parent.spec.replicas.value: spec.replicas is an integer in Website (example.com/v1), so this reads nothing',
    }]);
  });

  it('knows apiVersion, kind, metadata and status, and says nothing where the schema allows anything', () => {
    const expression = 'parent.apiVersion & parent.kind & parent.metadata.name & parent.metadata.labels.app & parent.status.ready & parent.spec.extra.any.thing';
    expect(check({ sync: jsonata(expression) })).toEqual({ problems: [], warnings: [] });
  });

  it('says nothing below a wildcard', () => {
    expect(check({ sync: jsonata('parent.spec.*.nope & parent.*.mesage') })).toEqual({ problems: [], warnings: [] });
  });

  it('reads a DecoratorController’s object', () => {
    expect(check({ finalize: jsonata('object.metadata.nmae') }, undefined, 'object').problems).toEqual([{
      path: 'spec.hooks.finalize.jsonata.expression',
      message: 'line 1, column 17: object.metadata.nmae: no such field in Website (example.com/v1), so this reads nothing (did you mean name?)',
    }]);
  });

  it('reads `parent` in a DecoratorController’s customize hook, whose request names its object so', () => {
    expect(check({ customize: jsonata('parent.spec.mesage & object.spec.other') }, undefined, 'object').problems).toEqual([{
      path: 'spec.hooks.customize.jsonata.expression',
      message: 'line 1, column 13: parent.spec.mesage: no such field in Website (example.com/v1), so this reads nothing (did you mean message?)',
    }]);
  });

  it('says nothing of a CRD that keeps unknown fields everywhere (spec.preserveUnknownFields)', () => {
    const crd = websiteCrd(SCHEMA);
    const legacy = { ...crd, spec: { ...(crd.spec as Record<string, unknown>), preserveUnknownFields: true } };
    expect(check({ sync: jsonata('{ "status": { "redy": parent.spec.mesage } }') }, [legacy])).toEqual({ problems: [], warnings: [] });
  });

  it('says nothing without the parent’s CRD, or its schema for the version', () => {
    expect(check({ sync: jsonata('parent.spec.mesage') }, [])).toEqual({ problems: [], warnings: [] });
    expect(expressionSchemaChecks({ input: 'parent', parents: [{ apiVersion: 'example.com/v0', resource: 'websites' }], hooks: { sync: jsonata('parent.spec.mesage') } }, [websiteCrd(SCHEMA)]))
      .toEqual({ problems: [], warnings: [] });
  });
});

describe('expressionSchemaChecks: status', () => {
  it('reports a status field the status schema lacks, at any depth', () => {
    const expression = '{ "status": { "redy": true, "conditions": [{ "type": "Ready", "stauts": "True" }] } }';
    expect(check({ sync: jsonata(expression) }).problems).toEqual([
      { path: 'spec.hooks.sync.jsonata.expression', message: 'line 1, column 15: status.redy: no such field in the status schema of Website (example.com/v1), so the API server drops it (did you mean ready?)' },
      { path: 'spec.hooks.sync.jsonata.expression', message: 'line 1, column 63: status.conditions.stauts: no such field in the status schema of Website (example.com/v1), so the API server drops it (did you mean status?)' },
    ]);
  });

  it('reports only the outermost missing field of a nested constructor', () => {
    expect(check({ finalize: jsonata('{ "status": { "summary": { "count": 1 } } }') }).problems.map((p) => p.message)).toEqual([
      'line 1, column 15: status.summary: no such field in the status schema of Website (example.com/v1), so the API server drops it',
    ]);
  });

  it('says nothing when the status schema is missing or allows anything', () => {
    const expression = '{ "status": { "anything": 1 } }';
    const { status: _, ...noStatus } = SCHEMA.properties;
    expect(check({ sync: jsonata(expression) }, [websiteCrd({ ...SCHEMA, properties: noStatus })]).problems).toEqual([]);
    const open = { ...SCHEMA, properties: { ...SCHEMA.properties, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
    expect(check({ sync: jsonata(expression) }, [websiteCrd(open)]).problems).toEqual([]);
  });

  it('does not check the status of a customize answer, which has none', () => {
    expect(check({ customize: jsonata('{ "status": { "redy": true } }') }).problems).toEqual([]);
  });
});

describe('expressionSchemaChecks: children', () => {
  const children = { field: 'childResources' as const, rules: [{ apiVersion: 'v1', resource: 'configmaps' }, { apiVersion: 'example.com/v1', resource: 'websites' }] };

  function checkChildren(expression: string, rules = children.rules, crds: readonly KubeObject[] = [websiteCrd(SCHEMA)]) {
    return expressionSchemaChecks({ input: 'parent', parents: WEBSITES, children: { ...children, rules }, hooks: { sync: jsonata(expression) } }, crds).problems.map((p) => p.message);
  }

  it('reports a key no declared child type has, with a did-you-mean', () => {
    expect(checkChildren('children."ConfigMpa.v1".*.data')).toEqual([
      'line 1, column 10: children."ConfigMpa.v1": no type among spec.childResources has this key, so this reads nothing (did you mean ConfigMap.v1?)',
    ]);
  });

  it('reads a child of a CRD’s type against its schema', () => {
    expect(checkChildren('children."Website.example.com/v1".*.spec.mesage & children."Website.example.com/v1".web.status.ready')).toEqual([
      'line 1, column 42: children."Website.example.com/v1".*.spec.mesage: no such field in Website (example.com/v1), so this reads nothing (did you mean message?)',
    ]);
  });

  it('says nothing of a key when a declared type’s kind is unknown, nor of a built-in child’s fields', () => {
    expect(checkChildren('children."ConfigMpa.v1".*.data', children.rules, [])).toEqual([]);
    expect(checkChildren('children."ConfigMap.v1".*.dta.x')).toEqual([]);
  });

  it('reads loom’s $child(children, key, name) the same way, each problem once', () => {
    expect(checkChildren('$child(children, "ConfigMpa.v1", "a").data & $child(children, "Website.example.com/v1", "web").spec.mesage')).toEqual([
      'line 1, column 18: children."ConfigMpa.v1": no type among spec.childResources has this key, so this reads nothing (did you mean ConfigMap.v1?)',
      'line 1, column 101: children."Website.example.com/v1".*.spec.mesage: no such field in Website (example.com/v1), so this reads nothing (did you mean message?)',
    ]);
  });

  it('reads a DecoratorController’s attachments', () => {
    const problems = expressionSchemaChecks({
      input: 'object', parents: WEBSITES, children: { field: 'attachments', rules: children.rules }, hooks: { finalize: jsonata('attachments."ConfigMpa.v1"') },
    }, [websiteCrd(SCHEMA)]).problems;
    expect(problems).toEqual([{
      path: 'spec.hooks.finalize.jsonata.expression',
      message: 'line 1, column 13: attachments."ConfigMpa.v1": no type among spec.attachments has this key, so this reads nothing (did you mean ConfigMap.v1?)',
    }]);
  });
});
