import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { literalObjects } from './literal-objects.ts';

describe('literalObjects', () => {
  it('finds the answered children in arrays, lambdas and conditions, with where each starts', () => {
    const expression = `{
  "children": [
    { "apiVersion": "v1", "kind": "Secret", "metadata": { "name": "x" } },
    $map([1], function($i) { { "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {} } }),
    parent.spec.ha ? { "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {} } : []
  ]
}`;
    expect(literalObjects(expression, 'children')).toEqual([
      { kind: 'Secret', apiVersion: 'v1', line: 3, column: 5, name: 'x' },
      { kind: 'Deployment', apiVersion: 'apps/v1', line: 4, column: 30 },
      { kind: 'PodDisruptionBudget', apiVersion: 'policy/v1', line: 5, column: 22 },
    ]);
  });

  it('leaves out references to objects, which have no metadata (an HPA scale target)', () => {
    const hpa = '{ "children": [{ "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": { "name": "h" }, "spec": { "scaleTargetRef": { "apiVersion": "apps/v1", "kind": "Deployment", "name": "web" } } }] }';
    expect(literalObjects(hpa, 'children').map((o) => o.kind)).toEqual(['HorizontalPodAutoscaler']);
  });

  it('leaves out a manifest a child embeds, and objects elsewhere in the answer', () => {
    const embedding = `{
  "children": [{ "apiVersion": "example.com/v1", "kind": "Bundle", "metadata": {}, "spec": { "resources": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": {} }] } }],
  "status": { "template": { "apiVersion": "v1", "kind": "Pod", "metadata": {} } }
}`;
    expect(literalObjects(embedding, 'children').map((o) => o.kind)).toEqual(['Bundle']);
    expect(literalObjects(embedding, 'attachments')).toEqual([]);
  });

  it('leaves out a computed kind, and keeps a computed apiVersion as unknown', () => {
    expect(literalObjects('{ "children": [{ "apiVersion": "v1", "kind": parent.spec.kind, "metadata": {} }] }', 'children')).toEqual([]);
    expect(literalObjects('{ "children": [{ "apiVersion": parent.apiVersion, "kind": "ConfigMap", "metadata": {} }] }', 'children'))
      .toEqual([{ kind: 'ConfigMap', apiVersion: undefined, line: 1, column: 16 }]);
  });

  it('finds nothing in an expression that does not compile', () => {
    expect(literalObjects('{ "children": [{ "kind": "Secret", ', 'children')).toEqual([]);
  });

  it('finds a child nested almost as deeply as JSONata parses, without overflowing the call stack', () => {
    const child = '{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": {} }';
    const nested = (depth: number) => `{ "children": [${'('.repeat(depth)}${child}${')'.repeat(depth)}] }`;
    // The deepest nesting JSONata parses from here (a few thousand levels, by the stack's size), less a
    // margin for the frames literalObjects adds before it parses.
    let [parses, fails] = [1, 100_000];
    while (fails - parses > 1) {
      const depth = Math.floor((parses + fails) / 2);
      try {
        jsonata(nested(depth));
        parses = depth;
      } catch {
        fails = depth;
      }
    }
    expect(literalObjects(nested(Math.floor(parses * 0.95)), 'children').map((o) => o.kind)).toEqual(['ConfigMap']);
  });

  it('reads a literal name and the annotations whose keys and values are literal strings', () => {
    const expression = `{ "children": [{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {
    "name": "web",
    "annotations": { "loom.dev/wave": "1", "loom.dev/depends-on": "Job.batch/" & parent.metadata.name, "note": 3 }
  }
}] }`;
    expect(literalObjects(expression, 'children')).toEqual([
      { kind: 'Deployment', apiVersion: 'apps/v1', line: 1, column: 16, name: 'web', annotations: { 'loom.dev/wave': '1' }, computedAnnotations: true },
    ]);
  });

  it('has no name or annotations when they are computed', () => {
    const expression = '{ "children": [{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": parent.metadata.name, "annotations": $merge([{}]) } }] }';
    const [object] = literalObjects(expression, 'children');
    expect(object).not.toHaveProperty('name');
    expect(object).not.toHaveProperty('annotations');
    expect(object).toHaveProperty('computedAnnotations', true);
  });
});
