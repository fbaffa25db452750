/**
 * loom's ordering, readiness and lifecycle fields of a controller manifest (docs/ordering-and-readiness.md):
 * `childResources[]` wave, readyWhen, deletionPolicy, onImmutableChange and adopt, and `spec.readyCondition`.
 */
import { describe, expect, it } from 'vitest';
import type { FieldProblem } from './field-reader.ts';
import { parseCompositeController, parseDecoratorController, type ParseResult } from './parse-controller.ts';
import { withField } from './testdata/load.test-support.ts';
import { minimalComposite, minimalDecorator } from './testdata/manifests.test-support.ts';

function valueOf<T>(result: ParseResult<T>): T {
  if (!result.ok) throw new Error(`expected a valid controller, got ${JSON.stringify(result.problems)}`);
  return result.value;
}

function problemsOf(result: ParseResult<unknown>): FieldProblem[] {
  if (result.ok) throw new Error('expected problems, got a valid controller');
  return result.problems;
}

const child = 'spec.childResources[0]';
const withChild = (fields: Record<string, unknown>) => withField(minimalComposite, child, { apiVersion: 'v1', resource: 'pods', ...fields });

describe('childResources[]: loom’s per-type policies', () => {
  it('reads every field into the rule, with no warning', () => {
    const result = parseCompositeController(withChild({
      wave: -2, readyWhen: 'status.phase = "Running"', deletionPolicy: 'Retain', onImmutableChange: 'Recreate', adopt: 'Never',
    }));
    expect(result.warnings).toEqual([]);
    expect(valueOf(result).spec.childResources[0]).toEqual({
      apiVersion: 'v1',
      resource: 'pods',
      updateStrategy: { method: 'OnDelete', statusChecks: { conditions: [] } },
      wave: -2,
      readyWhen: 'status.phase = "Running"',
      deletionPolicy: 'Retain',
      onImmutableChange: 'Recreate',
      adopt: 'Never',
    });
  });

  it.each([['Delete'], ['Orphan'], ['Retain']])('takes deletionPolicy %s', (policy) => {
    expect(valueOf(parseCompositeController(withChild({ deletionPolicy: policy }))).spec.childResources[0]?.deletionPolicy).toBe(policy);
  });

  it('leaves every field absent when the manifest does not set it, so nothing changes for a Metacontroller manifest', () => {
    const spec = valueOf(parseCompositeController(minimalComposite)).spec;
    expect(Object.keys(spec.childResources[0] ?? {}).sort()).toEqual(['apiVersion', 'resource', 'updateStrategy']);
    expect('readyCondition' in spec).toBe(false);
  });

  it('treats null as absent, as the API server does', () => {
    const rule = valueOf(parseCompositeController(withChild({ wave: null, readyWhen: null, adopt: null }))).spec.childResources[0];
    expect(Object.keys(rule ?? {}).sort()).toEqual(['apiVersion', 'resource', 'updateStrategy']);
  });

  it('takes wave 0 and the widest waves an annotation can name', () => {
    for (const wave of [0, 999_999_999, -999_999_999]) {
      expect(valueOf(parseCompositeController(withChild({ wave }))).spec.childResources[0]?.wave).toBe(wave);
    }
  });

  it.each([
    ['wave as a string', { wave: '1' }, 'wave', 'expected an integer'],
    ['fractional wave', { wave: 1.5 }, 'wave', 'expected an integer'],
    ['wave wider than an annotation can name', { wave: 1_000_000_000 }, 'wave', 'expected an integer from -999999999 to 999999999'],
    ['readyWhen not a string', { readyWhen: true }, 'readyWhen', 'expected a string'],
    ['empty readyWhen', { readyWhen: '' }, 'readyWhen', 'expected a non-empty string'],
    ['blank readyWhen', { readyWhen: ' \n ' }, 'readyWhen', 'expected a JSONata expression; got only white space'],
    ['unknown deletionPolicy', { deletionPolicy: 'Keep' }, 'deletionPolicy', 'expected one of Delete, Orphan, Retain; got "Keep"'],
    ['deletionPolicy in the wrong case', { deletionPolicy: 'orphan' }, 'deletionPolicy', 'expected one of Delete, Orphan, Retain; got "orphan" (did you mean Orphan?)'],
    ['misspelt deletionPolicy', { deletionPolicy: 'Retian' }, 'deletionPolicy', '(did you mean Retain?)'],
    ['unknown onImmutableChange', { onImmutableChange: 'Replace' }, 'onImmutableChange', 'expected one of Recreate, Fail; got "Replace"'],
    ['onImmutableChange in the wrong case', { onImmutableChange: 'recreate' }, 'onImmutableChange', '(did you mean Recreate?)'],
    ['unknown adopt', { adopt: 'Always' }, 'adopt', 'expected one of IfExists, Never; got "Always"'],
    ['misspelt adopt', { adopt: 'IfExist' }, 'adopt', '(did you mean IfExists?)'],
    ['adopt as a boolean', { adopt: false }, 'adopt', 'expected a string'],
  ])('refuses %s', (_name, fields, field, message) => {
    expect(problemsOf(parseCompositeController(withChild(fields)))).toEqual([{ path: `${child}.${field}`, message: expect.stringContaining(message) as string }]);
  });

  it('reports every bad field of a rule at once', () => {
    const problems = problemsOf(parseCompositeController(withChild({ wave: 'first', readyWhen: '', deletionPolicy: 'x', onImmutableChange: 'y', adopt: 'z' })));
    expect(problems.map((p) => p.path)).toEqual(['wave', 'readyWhen', 'deletionPolicy', 'onImmutableChange', 'adopt'].map((f) => `${child}.${f}`));
  });

  it('says a misspelt field is probably one of them', () => {
    const result = parseCompositeController(withChild({ readywhen: 'true' }));
    expect(result.warnings).toEqual([{ path: `${child}.readywhen`, message: 'unknown field; ignored (did you mean readyWhen?)' }]);
  });

  it('says dependsOn is set per child, by annotation, not on the type', () => {
    const result = parseCompositeController(withChild({ dependsOn: ['PersistentVolumeClaim/data'] }));
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([{
      path: `${child}.dependsOn`,
      message: 'unknown field; ignored: dependsOn names sibling objects, so each desired child sets it with the loom.dev/depends-on annotation',
    }]);
  });
});

describe.each([
  ['readyCondition', 'only a CompositeController writes a Ready condition on its parent'],
  ['orderedTeardown', 'a DecoratorController writes its attachments without order, so the garbage collector deletes them'],
] as const)('spec.%s', (field, decoratorHint) => {
  it.each([true, false])('reads %s', (value) => {
    const result = parseCompositeController(withField(minimalComposite, `spec.${field}`, value));
    expect(result.warnings).toEqual([]);
    expect(valueOf(result).spec[field]).toBe(value);
  });

  it('is absent when the manifest leaves it out', () => {
    expect(field in valueOf(parseCompositeController(minimalComposite)).spec).toBe(false);
  });

  it('refuses a value that is not a boolean', () => {
    expect(problemsOf(parseCompositeController(withField(minimalComposite, `spec.${field}`, 'true'))))
      .toEqual([{ path: `spec.${field}`, message: 'expected a boolean' }]);
  });

  it('is a CompositeController field: a DecoratorController warns that it ignores it', () => {
    const result = parseDecoratorController(withField(minimalDecorator, `spec.${field}`, true));
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([{ path: `spec.${field}`, message: `unknown field; ignored: ${decoratorHint}` }]);
  });
});

describe('DecoratorController attachments[]', () => {
  it.each(['wave', 'readyWhen', 'deletionPolicy', 'onImmutableChange', 'adopt'])('warns that %s is a childResources field it ignores', (field) => {
    const attachment = { apiVersion: 'v1', resource: 'services', [field]: field === 'wave' ? 1 : 'x' };
    const result = parseDecoratorController(withField(minimalDecorator, 'spec.attachments', [attachment]));
    expect(result.ok).toBe(true);
    expect(valueOf(result).spec.attachments[0]).toEqual({ apiVersion: 'v1', resource: 'services', updateStrategy: { method: 'OnDelete' } });
    expect(result.warnings).toEqual([{
      path: `spec.attachments[0].${field}`,
      message: `unknown field; ignored: ${field} is a field of a CompositeController's childResources[], not of attachments`,
    }]);
  });
});
