import { describe, expect, it } from 'vitest';
import { literalObjects } from './literal-objects.ts';

describe('literalObjects', () => {
  it('finds literal objects in arrays, lambdas and nested objects, with where each starts', () => {
    const expression = `{
  "children": [
    { "apiVersion": "v1", "kind": "Secret", "metadata": { "name": "x" } },
    $map([1], function($i) { { "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {} } })
  ]
}`;
    expect(literalObjects(expression)).toEqual([
      { kind: 'Secret', apiVersion: 'v1', line: 3, column: 5 },
      { kind: 'Deployment', apiVersion: 'apps/v1', line: 4, column: 30 },
    ]);
  });

  it('leaves out references to objects, which have no metadata (an HPA scale target)', () => {
    const hpa = '{ "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": { "name": "h" }, "spec": { "scaleTargetRef": { "apiVersion": "apps/v1", "kind": "Deployment", "name": "web" } } }';
    expect(literalObjects(hpa).map((o) => o.kind)).toEqual(['HorizontalPodAutoscaler']);
  });

  it('leaves out a computed kind, and keeps a computed apiVersion as unknown', () => {
    expect(literalObjects('{ "apiVersion": "v1", "kind": parent.spec.kind, "metadata": {} }')).toEqual([]);
    expect(literalObjects('{ "apiVersion": parent.apiVersion, "kind": "ConfigMap", "metadata": {} }')).toEqual([{ kind: 'ConfigMap', apiVersion: undefined, line: 1, column: 1 }]);
  });

  it('finds nothing in an expression that does not compile', () => {
    expect(literalObjects('{ "kind": "Secret", ')).toEqual([]);
  });
});
