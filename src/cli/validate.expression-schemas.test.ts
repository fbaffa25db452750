/** `loom validate` holds inline expressions against the parent's CRD when it is among the files. */
import { describe, expect, it } from 'vitest';
import { validateFiles } from './validate.ts';
import { memoryFiles } from './validate.test-support.ts';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: websites.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { kind: Website, plural: websites }
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { message: { type: string } } }
            status: { type: object, properties: { ready: { type: boolean } } }
`;

const EXPRESSION = `
          {
            "children": [{
              "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name },
              "data": { "message": parent.spec.mesage }
            }],
            "status": { "redy": true }
          }`;

function controller(kind: 'CompositeController' | 'DecoratorController'): string {
  const composite = kind === 'CompositeController';
  const types = composite
    ? '  parentResource: { apiVersion: example.com/v1, resource: websites }\n  childResources: [{ apiVersion: v1, resource: configmaps }]'
    : '  resources: [{ apiVersion: example.com/v1, resource: websites }]\n  attachments: [{ apiVersion: v1, resource: configmaps }]';
  const expression = composite ? EXPRESSION : EXPRESSION.replace('"children"', '"attachments"').replaceAll('parent.', 'object.');
  return `apiVersion: metacontroller.k8s.io/v1alpha1
kind: ${kind}
metadata: { name: website }
spec:
${types}
  hooks:
    sync:
      jsonata:
        expression: |${expression}
`;
}

describe('loom validate: expressions against the parent CRD', () => {
  it('names a misspelt parent field and a status field the API server would drop', async () => {
    const result = await validateFiles(['crd.yaml', 'c.yaml'], memoryFiles({ 'crd.yaml': CRD, 'c.yaml': controller('CompositeController') }));
    expect(result.problems).toEqual([
      'c.yaml: spec.hooks.sync.jsonata.expression: line 4, column 38: parent.spec.mesage: no such field in Website (example.com/v1), so this reads nothing (did you mean message?)',
      'c.yaml: spec.hooks.sync.jsonata.expression: line 6, column 15: status.redy: no such field in the status schema of Website (example.com/v1), so the API server drops it (did you mean ready?)',
    ]);
  });

  it('checks a DecoratorController’s object the same way', async () => {
    const result = await validateFiles(['crd.yaml', 'd.yaml'], memoryFiles({ 'crd.yaml': CRD, 'd.yaml': controller('DecoratorController') }));
    expect(result.problems).toEqual([
      'd.yaml: spec.hooks.sync.jsonata.expression: line 4, column 38: object.spec.mesage: no such field in Website (example.com/v1), so this reads nothing (did you mean message?)',
      'd.yaml: spec.hooks.sync.jsonata.expression: line 6, column 15: status.redy: no such field in the status schema of Website (example.com/v1), so the API server drops it (did you mean ready?)',
    ]);
  });

  it('names a children key no declared type has', async () => {
    const text = controller('CompositeController').replace('"data": { "message": parent.spec.mesage }', '"data": { "n": $string($count(children."ConfigMpa.v1")) }');
    const result = await validateFiles(['crd.yaml', 'c.yaml'], memoryFiles({ 'crd.yaml': CRD, 'c.yaml': text }));
    expect(result.problems[0]).toBe(
      'c.yaml: spec.hooks.sync.jsonata.expression: line 4, column 44: children."ConfigMpa.v1": no type among spec.childResources has this key, so this reads nothing (did you mean ConfigMap.v1?)',
    );
  });

  it('says nothing of them without the CRD', async () => {
    const result = await validateFiles(['c.yaml'], memoryFiles({ 'c.yaml': controller('CompositeController') }));
    expect(result.problems).toEqual([]);
  });
});
