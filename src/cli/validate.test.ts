import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { composite, memoryFiles, validateOne } from './validate.test-support.ts';
import { formatValidation, validateFiles, type ReadTextFile, type ValidationResult } from './validate.ts';

const TESTDATA = new URL('testdata/validate/', import.meta.url);

/** Reads fixtures by bare name, so reported lines start with the name rather than an absolute path. */
const readFixture: ReadTextFile = (name) => readFile(new URL(name, TESTDATA), 'utf8');

function withSyncExpression(expression: string): string {
  return composite({ hooks: { sync: { jsonata: { expression } } } });
}

describe('validateFiles: fixtures', () => {
  it('reports nothing for a valid CompositeController (configMapRef expressions are not checked)', async () => {
    const result = await validateFiles(['valid-composite.yaml'], readFixture);
    expect(result).toEqual({ problems: [], warnings: [], checked: 1, skipped: 0 });
    expect(formatValidation(result)).toBe('');
  });

  it('reports nothing for a valid DecoratorController', async () => {
    expect(await validateFiles(['decorator.yaml'], readFixture)).toEqual({ problems: [], warnings: [], checked: 1, skipped: 0 });
  });

  it('reports every schema problem of an invalid CompositeController', async () => {
    const result = await validateFiles(['invalid-composite.yaml'], readFixture);
    expect(result.problems).toEqual([
      'invalid-composite.yaml: spec.parentResource.resource: is required',
      'invalid-composite.yaml: spec.childResources[0].updateStrategy.method: expected one of OnDelete, Recreate, InPlace, RollingRecreate, RollingInPlace; got "Rolling"',
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('reports a JSONata syntax error with its line and column in the expression', async () => {
    const result = await validateFiles(['jsonata-syntax-error.yaml'], readFixture);
    expect(result.problems).toEqual([
      'jsonata-syntax-error.yaml: spec.hooks.sync.jsonata.expression: syntax error at line 3, column 22: The symbol "," cannot be used as a unary operator',
    ]);
  });

  it('reports a YAML syntax error once, with its line and column', async () => {
    const result = await validateFiles(['yaml-syntax-error.yaml'], readFixture);
    expect(result).toEqual({
      problems: ['yaml-syntax-error.yaml: (yaml): syntax error at line 4, column 12: bad indentation of a mapping entry'],
      warnings: [],
      checked: 0,
      skipped: 0,
    });
  });

  it('numbers the documents of a multi-document file and skips the ones that are not controllers', async () => {
    const result = await validateFiles(['multi-document.yaml'], readFixture);
    expect(result).toEqual({
      problems: [
        'multi-document.yaml: [2] spec.attachments[1]: names the same resource as spec.attachments[0] (secrets in the core group); merge them into one rule',
        'multi-document.yaml: [2] spec.hooks.sync.version: expected one of v1, v2; got "v3"',
      ],
      warnings: ['warning: multi-document.yaml: [2] spec.hooks.sync.retries: unknown field; ignored'],
      checked: 2,
      skipped: 2,
    });
  });

  it('checks revision field paths, duplicate child rules and ignored status checks', async () => {
    const result = await validateFiles(['referenced-fields.yaml'], readFixture);
    const badPath = (i: number, path: string): string =>
      `referenced-fields.yaml: spec.parentResource.revisionHistory.fieldPaths[${i}]: expected a dotted path of field names such as spec.template; got ${JSON.stringify(path)}`;
    expect(result.problems).toEqual([
      badPath(1, 'spec..template'),
      badPath(2, 'spec.containers[0]'),
      badPath(3, ''),
      'referenced-fields.yaml: spec.childResources[2]: names the same resource as spec.childResources[0] (pods in the core group); merge them into one rule',
    ]);
    expect(result.warnings).toEqual([
      'warning: referenced-fields.yaml: spec.childResources[0].updateStrategy.statusChecks: only RollingRecreate and RollingInPlace use status checks; ignored with InPlace',
    ]);
  });

  it('reads files from disk by default and reports them by the path given', async () => {
    const path = fileURLToPath(new URL('invalid-composite.yaml', TESTDATA));
    const result = await validateFiles([path]);
    expect(result.problems[0]).toBe(`${path}: spec.parentResource.resource: is required`);
  });
});

describe('validateFiles: JSONata positions', () => {
  it.each([
    ['an extra closing brace', '{"a": 1}}', 'line 1, column 9'],
    ['a bad token on a later line', '{\n  "a": 1,\n  "b": [1 2]\n}', 'line 3, column 11'],
    ['a string token', '{"a": "x" "y"}', 'line 1, column 11'],
    ['a number spelled otherwise than its value', '[1 1e3]', 'line 1, column 6'],
    ['an unclosed call at the end', '$foo(\n', 'line 1, column 6'],
    ['an unclosed call followed by blank lines', '$foo(  \n\n', 'line 1, column 6'],
    ['an unterminated string', '"abc', 'line 1, column 5'],
    ['a blank expression', '  ', 'line 1, column 1'],
  ])('%s', async (_name, expression, where) => {
    const result = await validateOne('c.yaml', withSyncExpression(expression));
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(new RegExp(`^c\\.yaml: spec\\.hooks\\.sync\\.jsonata\\.expression: syntax error at ${where}: `));
  });

  it('compiles every hook of a DecoratorController, not only sync', async () => {
    const decorator = JSON.stringify({
      apiVersion: 'metacontroller.k8s.io/v1alpha1',
      kind: 'DecoratorController',
      metadata: { name: 'd' },
      spec: { resources: [{ apiVersion: 'v1', resource: 'pods' }], hooks: { finalize: { jsonata: { expression: '$x(' } } } },
    });
    const result = await validateOne('d.yaml', decorator);
    expect(result.problems).toEqual(['d.yaml: spec.hooks.finalize.jsonata.expression: syntax error at line 1, column 4: Expected ")" before end of expression']);
  });
});

describe('validateFiles: documents and files', () => {
  it('indexes documents by position, counting empty ones, and only when there are several', async () => {
    const bad = composite({ generateSelector: 'yes' });
    const numbered = await validateOne('m.yaml', `---\n---\n${bad}\n---\n${bad}\n`);
    expect(numbered.problems).toEqual([
      'm.yaml: [1] spec.generateSelector: expected a boolean',
      'm.yaml: [2] spec.generateSelector: expected a boolean',
    ]);
    const single = await validateOne('s.yaml', `${bad}\n---\n`);
    expect(single.problems).toEqual(['s.yaml: spec.generateSelector: expected a boolean']);
  });

  it('checks any version of the metacontroller group instead of skipping it', async () => {
    const result = await validateOne('v.yaml', composite({}, { apiVersion: 'metacontroller.k8s.io/v1' }));
    expect(result.problems).toEqual(['v.yaml: apiVersion: expected metacontroller.k8s.io/v1alpha1']);
    expect(result.checked).toBe(1);
  });

  it('skips documents that are not controllers, scalars included, and fails when no file holds a controller', async () => {
    const text = 'just text\n---\napiVersion: metacontroller.k8s.io/v1alpha1\nkind: ControllerRevision\n---\napiVersion: v1\nkind: Pod\n';
    expect(await validateOne('o.yaml', text)).toEqual({
      problems: ['loom validate: no CompositeController or DecoratorController found (3 other documents skipped)'], warnings: [], checked: 0, skipped: 3,
    });
    const withController = await validateFiles(['o.yaml', 'c.yaml'], memoryFiles({ 'o.yaml': text, 'c.yaml': composite() }));
    expect(withController).toEqual({ problems: [], warnings: [], checked: 1, skipped: 3 });
  });

  it.each([
    ['CompositeControler', 'CompositeController'],
    ['compositecontroller', 'CompositeController'],
    ['DecoratorControler', 'DecoratorController'],
  ])('says what a near-miss kind %s meant', async (kind, meant) => {
    const result = await validateOne('k.yaml', composite({}, { kind }));
    expect(result.problems).toEqual([`k.yaml: kind: "${kind}" is not a kind loom runs; did you mean "${meant}"?`]);
    expect(result.checked).toBe(1);
  });

  it('checks a controller kind in another API group, naming the group it must be in', async () => {
    const result = await validateOne('g.yaml', composite({}, { apiVersion: 'metacontroler.k8s.io/v1alpha1' }));
    expect(result.problems).toEqual(['g.yaml: apiVersion: expected metacontroller.k8s.io/v1alpha1']);
    expect(result.checked).toBe(1);
  });

  it('warns about status checks when the method defaults to OnDelete', async () => {
    const child = { apiVersion: 'v1', resource: 'pods', updateStrategy: { statusChecks: { conditions: [{ type: 'Ready' }] } } };
    const result = await validateOne('w.yaml', composite({ childResources: [child] }));
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([
      'warning: w.yaml: spec.childResources[0].updateStrategy.statusChecks: only RollingRecreate and RollingInPlace use status checks; ignored with OnDelete',
    ]);
  });

  it('reports an unreadable file and still checks the others, in the order given', async () => {
    const read = memoryFiles({ 'a.yaml': composite({ resyncPeriodSeconds: 'often' }), 'c.yaml': composite() });
    const result = await validateFiles(['a.yaml', 'missing.yaml', 'c.yaml'], read);
    expect(result.problems).toEqual([
      'a.yaml: spec.resyncPeriodSeconds: expected an integer',
      "missing.yaml: (read): ENOENT: no such file or directory, open 'missing.yaml'",
    ]);
    expect(result.checked).toBe(2);
  });
});

describe('formatValidation', () => {
  const empty: ValidationResult = { problems: [], warnings: [], checked: 0, skipped: 0 };

  it('prints nothing when every controller is clean', () => {
    expect(formatValidation({ ...empty, checked: 3, skipped: 1 })).toBe('');
  });

  it('prints warnings, then problems, then a summary', () => {
    const text = formatValidation({ problems: ['f: a: bad', 'f: b: bad'], warnings: ['warning: f: c: odd'], checked: 1, skipped: 0 });
    expect(text).toBe('warning: f: c: odd\nf: a: bad\nf: b: bad\n2 problems, 1 warning in 1 controller\n');
  });

  it('says so when no file held a controller', async () => {
    const result = await validateFiles(['pod.yaml'], memoryFiles({ 'pod.yaml': 'apiVersion: v1\nkind: Pod\n' }));
    expect(formatValidation(result)).toBe('loom validate: no CompositeController or DecoratorController found (1 other document skipped)\n1 problem, 0 warnings in 0 controllers\n');
  });

  it('prints a file-level problem even when no controller was checked', () => {
    expect(formatValidation({ ...empty, problems: ['f: (yaml): syntax error'] })).toBe('f: (yaml): syntax error\n1 problem, 0 warnings in 0 controllers\n');
  });
});

describe('validateFiles: objects a JSONata hook builds', () => {
  const greetingCrd = JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'salutations.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'salutations', kind: 'Greeting' }, versions: [{ name: 'v1', served: true, storage: true }] },
  });
  const returning = (object: string, childResources: object[]): string => composite({
    childResources,
    hooks: { sync: { jsonata: { expression: `{\n  "children": [\n    ${object}\n  ]\n}` } } },
  });
  const secret = '{ "apiVersion": "v1", "kind": "Secret", "metadata": { "name": parent.metadata.name } }';

  it('reports a literal child of a kind the controller does not declare, with where it is and what to add', async () => {
    const result = await validateOne('c.yaml', returning(secret, [{ apiVersion: 'v1', resource: 'configmaps' }]));
    expect(result.problems).toEqual([
      'c.yaml: spec.hooks.sync.jsonata.expression: line 3, column 5: a Secret (v1) is not among spec.childResources, so loom would refuse every sync that returns one; add { apiVersion: v1, resource: secrets } to spec.childResources',
    ]);
  });

  it('accepts a declared kind, also under another version of its group', async () => {
    const deployment = '{ "apiVersion": "apps/v1", "kind": "Deployment", "metadata": { "name": "d" } }';
    expect((await validateOne('c.yaml', returning(deployment, [{ apiVersion: 'apps/v1beta1', resource: 'deployments' }]))).problems).toEqual([]);
  });

  it('reads the kind of a custom child type from a CRD in another file of the set', async () => {
    const greeting = '{ "apiVersion": "example.com/v1", "kind": "Greeting", "metadata": { "name": "g" } }';
    const controller = returning(greeting, [{ apiVersion: 'example.com/v1', resource: 'salutations' }]);
    const withCrd = await validateFiles(['c.yaml', 'crd.yaml'], memoryFiles({ 'c.yaml': controller, 'crd.yaml': greetingCrd }));
    expect(withCrd.problems).toEqual([]);
    // Without the CRD, the regular plural (greetings) is all there is to go by: a warning, not a problem.
    const guessed = await validateOne('c.yaml', controller);
    expect(guessed.problems).toEqual([]);
    expect(guessed.warnings).toEqual([
      'warning: c.yaml: spec.hooks.sync.jsonata.expression: line 3, column 5: a Greeting (example.com/v1) is not among spec.childResources as far as its regular plural tells; give loom validate the CRDs of spec.childResources to be sure, or add { apiVersion: example.com/v1, resource: greetings }',
    ]);
  });

  it('takes an irregular plural it cannot know for a warning only (Mouse, mice)', async () => {
    const mouse = '{ "apiVersion": "example.com/v1", "kind": "Mouse", "metadata": { "name": "m" } }';
    const result = await validateOne('c.yaml', returning(mouse, [{ apiVersion: 'example.com/v1', resource: 'mice' }]));
    expect(result.problems).toEqual([]);
    expect(result.warnings).toHaveLength(1);
  });

  it('leaves out a manifest a child embeds, and objects in the status', async () => {
    const bundle = '{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": "b" }, "data": { "embedded": $string({ "apiVersion": "v1", "kind": "Secret", "metadata": {} }) } }';
    expect((await validateOne('c.yaml', returning(bundle, [{ apiVersion: 'v1', resource: 'configmaps' }]))).problems).toEqual([]);
  });

  it('checks a DecoratorController\'s attachments the same way', async () => {
    const decorator = JSON.stringify({
      apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController', metadata: { name: 'd' },
      spec: {
        resources: [{ apiVersion: 'apps/v1', resource: 'statefulsets' }],
        attachments: [{ apiVersion: 'v1', resource: 'services' }],
        hooks: { sync: { jsonata: { expression: `{ "attachments": [${secret}] }` } } },
      },
    });
    expect((await validateOne('d.yaml', decorator)).problems).toEqual([
      expect.stringContaining('d.yaml: spec.hooks.sync.jsonata.expression: line 1, column 19: a Secret (v1) is not among spec.attachments') as string,
    ]);
  });
});
