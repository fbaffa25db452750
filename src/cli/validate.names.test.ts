import { describe, expect, it } from 'vitest';
import { composite, memoryFiles, validateOne } from './validate.test-support.ts';
import { validateFiles } from './validate.ts';

function withSyncExpression(expression: string, spec: Record<string, unknown> = {}): string {
  return composite({ hooks: { sync: { jsonata: { expression } } }, ...spec });
}

function decorator(spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController', metadata: { name: 'd' }, spec });
}

const websiteCrd = JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'websites.example.com' },
  spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'websites', kind: 'Website' }, versions: [{ name: 'v1', served: true, storage: true }] },
});

describe('validateFiles: function names in expressions', () => {
  it('walks an expression with a 200,000-element array without running out of stack', async () => {
    const expression = `[${'0,'.repeat(200_000)}$uppercas("x")]`;
    const { problems } = await validateOne('c.yaml', withSyncExpression(expression));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/: line 1, column 400002: \$uppercas is not a function; did you mean \$uppercase\?$/);
  });

  it('reports a call of an unknown function with where it is and the function meant', async () => {
    const expression = '(\n  $name := parent.metadata.name;\n  { "n": $uppercas($name) }\n)';
    expect((await validateOne('c.yaml', withSyncExpression(expression))).problems).toEqual([
      'c.yaml: spec.hooks.sync.jsonata.expression: line 3, column 10: $uppercas is not a function; did you mean $uppercase?',
    ]);
  });

  it('names an unknown function that is close to nothing', async () => {
    expect((await validateOne('c.yaml', withSyncExpression('{ "n": $frobnicate(1) }'))).problems).toEqual([
      'c.yaml: spec.hooks.sync.jsonata.expression: line 1, column 8: $frobnicate is not a function (not JSONata\'s, not loom\'s, not bound in the expression)',
    ]);
  });

  it('checks the function a value is applied to with ~>, and a partial application', async () => {
    expect((await validateOne('c.yaml', withSyncExpression('{ "a": "x" ~> $uppercas, "b": $lowercas(?) }'))).problems).toEqual([
      'c.yaml: spec.hooks.sync.jsonata.expression: line 1, column 15: $uppercas is not a function; did you mean $uppercase?',
      'c.yaml: spec.hooks.sync.jsonata.expression: line 1, column 31: $lowercas is not a function; did you mean $lowercase?',
    ]);
  });

  it('accepts JSONata\'s functions, loom\'s helpers and every function the expression binds', async () => {
    const expression = [
      '(',
      '  $twice := function($f, $x) { $f($f($x)) };',
      '  $s := $string;',
      '  $items := parent.spec.items@$item#$i.{ "v": $item() };',
      '  {',
      '    "name": $dnsName(parent.metadata.name, $s(1)), "h": $hash($), "t": $now(), "m": $millis(),',
      '    "r": $ready($child(children, "ConfigMap.v1", "p")), "s": $readiness($$).status, "u": $twice($uppercase, "a"),',
      '    "l": $matchLabels({}, {}), "b": $base64decode($base64encode("x")), "e": $eval("1")',
      '  }',
      ')',
    ].join('\n');
    expect((await validateOne('c.yaml', withSyncExpression(expression, { childResources: [{ apiVersion: 'v1', resource: 'configmaps' }] }))).problems).toEqual([]);
  });

  it('never takes a name in a string or a comment for a call', async () => {
    const expression = '/* $uppercas(x) */ { "text": "$uppercas(1)", "other": \'$lowercas()\' }';
    expect((await validateOne('c.yaml', withSyncExpression(expression))).problems).toEqual([]);
  });

  it('leaves an expression that does not compile to the syntax check', async () => {
    expect((await validateOne('c.yaml', withSyncExpression('$uppercas(1'))).problems).toEqual([
      'c.yaml: spec.hooks.sync.jsonata.expression: syntax error at line 1, column 12: Expected ")" before end of expression',
    ]);
  });

  it('checks a child type\'s readyWhen and every hook of a DecoratorController', async () => {
    const childResources = [{ apiVersion: 'v1', resource: 'configmaps', readyWhen: '$redy($)' }];
    expect((await validateOne('c.yaml', composite({ childResources }))).problems).toEqual([
      'c.yaml: spec.childResources[0].readyWhen: line 1, column 1: $redy is not a function; did you mean $ready?',
    ]);
    const hooks = { finalize: { jsonata: { expression: '{ "finalized": $exits(children) }' } } };
    expect((await validateOne('d.yaml', decorator({ resources: [{ apiVersion: 'v1', resource: 'pods' }], hooks }))).problems).toEqual([
      'd.yaml: spec.hooks.finalize.jsonata.expression: line 1, column 16: $exits is not a function; did you mean $exists?',
    ]);
  });
});

describe('validateFiles: a misspelt child kind', () => {
  const returning = (object: string, childResources: object[]): string => withSyncExpression(`{\n  "children": [\n    ${object}\n  ]\n}`, { childResources });

  it('names the declared kind meant, before the rule to add should it be a kind of its own', async () => {
    const object = '{ "apiVersion": "v1", "kind": "ConfigMpa", "metadata": { "name": "c" } }';
    expect((await validateOne('c.yaml', returning(object, [{ apiVersion: 'v1', resource: 'configmaps' }]))).problems).toEqual([
      'c.yaml: spec.hooks.sync.jsonata.expression: line 3, column 5: a ConfigMpa (v1) is not among spec.childResources, so loom would refuse every sync that returns one; did you mean ConfigMap? If not, add { apiVersion: v1, resource: configmpas } to spec.childResources',
    ]);
  });

  it('names a built-in kind, or the kind of a CRD among the files, when one is close', async () => {
    const secret = '{ "apiVersion": "v1", "kind": "Secrte", "metadata": { "name": "s" } }';
    expect((await validateOne('c.yaml', returning(secret, [{ apiVersion: 'v1', resource: 'configmaps' }]))).problems).toEqual([
      'c.yaml: spec.hooks.sync.jsonata.expression: line 3, column 5: a Secrte (v1) is not among spec.childResources, so loom would refuse every sync that returns one; did you mean Secret? If not, add { apiVersion: v1, resource: secrtes } to spec.childResources',
    ]);
    const site = '{ "apiVersion": "example.com/v1", "kind": "Websiet", "metadata": { "name": "w" } }';
    const files = memoryFiles({ 'c.yaml': returning(site, [{ apiVersion: 'v1', resource: 'configmaps' }]), 'crd.yaml': websiteCrd });
    expect((await validateFiles(['c.yaml', 'crd.yaml'], files)).problems).toEqual([
      'c.yaml: spec.hooks.sync.jsonata.expression: line 3, column 5: a Websiet (example.com/v1) is not among spec.childResources, so loom would refuse every sync that returns one; did you mean Website? If not, add { apiVersion: example.com/v1, resource: websiets } to spec.childResources',
    ]);
  });

  it('names the kind meant in a warning too, when a declared type\'s kind is unknown (its resource misspelt)', async () => {
    const object = '{ "apiVersion": "v1", "kind": "ConfigMpa", "metadata": { "name": "c" } }';
    const result = await validateOne('c.yaml', returning(object, [{ apiVersion: 'v1', resource: 'configmap' }]));
    expect(result.problems).toEqual(['c.yaml: spec.childResources[0].resource: no resource "configmap" in v1; did you mean "configmaps"?']);
    expect(result.warnings).toEqual([
      'warning: c.yaml: spec.hooks.sync.jsonata.expression: line 3, column 5: a ConfigMpa (v1) is not among spec.childResources as far as its regular plural tells; did you mean ConfigMap? If not, give loom validate the CRDs of spec.childResources to be sure, or add { apiVersion: v1, resource: configmpas }',
    ]);
  });
});

describe('validateFiles: resource names', () => {
  async function withCrd(controller: string): Promise<string[]> {
    return (await validateFiles(['c.yaml', 'crd.yaml'], memoryFiles({ 'c.yaml': controller, 'crd.yaml': websiteCrd }))).problems;
  }
  const parent = (resource: string, apiVersion = 'example.com/v1'): Record<string, unknown> => ({ parentResource: { apiVersion, resource } });

  it('reports a resource near one a CRD among the files defines', async () => {
    expect(await withCrd(composite(parent('websits')))).toEqual([
      'c.yaml: spec.parentResource.resource: no resource "websits" in example.com/v1; did you mean "websites"?',
    ]);
  });

  it('says nothing when no CRD of the group is given, or none is close (another CRD of the group may be missing)', async () => {
    expect((await validateOne('c.yaml', composite(parent('websits')))).problems).toEqual([]);
    expect(await withCrd(composite(parent('gadgets')))).toEqual([]);
    // The resource exists; another version of it is not this check's business.
    expect(await withCrd(composite(parent('websites', 'example.com/v2')))).toEqual([]);
  });

  it('reports a resource a built-in group does not serve, with the one meant when close; one with nothing close only warns (a later Kubernetes may serve it)', async () => {
    const childResources = [{ apiVersion: 'v1', resource: 'configmap' }, { apiVersion: 'apps/v1', resource: 'frobs' }, { apiVersion: 'example.org/v1', resource: 'frobs' }];
    const result = await validateOne('c.yaml', composite({ childResources }));
    expect(result.problems).toEqual(['c.yaml: spec.childResources[0].resource: no resource "configmap" in v1; did you mean "configmaps"?']);
    expect(result.warnings).toEqual([
      'warning: c.yaml: spec.childResources[1].resource: no resource "frobs" in apps/v1 as far as loom\'s table of built-in types knows (a newer Kubernetes may serve it)',
    ]);
  });

  it('checks a DecoratorController\'s resources and attachments', async () => {
    const spec = {
      resources: [{ apiVersion: 'apps/v1', resource: 'statefulset' }],
      attachments: [{ apiVersion: 'example.com/v1', resource: 'websties' }],
      hooks: { sync: { webhook: { url: 'http://h/sync' } } },
    };
    const files = memoryFiles({ 'd.yaml': decorator(spec), 'crd.yaml': websiteCrd });
    expect((await validateFiles(['d.yaml', 'crd.yaml'], files)).problems).toEqual([
      'd.yaml: spec.resources[0].resource: no resource "statefulset" in apps/v1; did you mean "statefulsets"?',
      'd.yaml: spec.attachments[0].resource: no resource "websties" in example.com/v1; did you mean "websites"?',
    ]);
  });
});
