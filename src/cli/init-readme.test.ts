import { describe, expect, it } from 'vitest';
import { scaffoldNames, type ControllerKind, type HookLanguage } from './init-names.ts';
import { readme } from './init-readme.ts';
import { scaffoldFileNames } from './init-scaffold.ts';

const names = scaffoldNames({ kind: 'Website', group: 'example.com', version: 'v1alpha1' });
const CHOICES: [HookLanguage, ControllerKind][] = [['jsonata', 'composite'], ['jsonata', 'decorator'], ['typescript', 'composite'], ['typescript', 'decorator']];

describe('the scaffold README', () => {
  it.each(CHOICES)('describes every file of the %s %s scaffold but itself and .gitignore', (hook, controller) => {
    const scaffold = { names, hook, controller };
    const text = readme(scaffold);
    const described = [...text.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]);
    expect(described).toEqual(scaffoldFileNames(scaffold).filter((name) => name !== 'README.md' && name !== '.gitignore'));
  });

  it('tells a TypeScript user to serve the hook, and a JSONata user that there is nothing to serve', () => {
    expect(readme({ names, hook: 'typescript', controller: 'composite' })).toContain('npm start &');
    const jsonata = readme({ names, hook: 'jsonata', controller: 'composite' });
    expect(jsonata).not.toContain('npm start');
    expect(jsonata).toContain('There is no hook service to build or run');
  });

  it('names the kind\'s resource in its kubectl commands and in the permissions loom needs', () => {
    const text = readme({ names, hook: 'jsonata', controller: 'decorator' });
    expect(text).toContain('kubectl get websites\nkubectl get configmap website-sample -o yaml\n');
    expect(text).toContain('`websites/status`');
    expect(text).toContain('`spec.attachments`');
  });

  it('tells a CompositeController user about the Ready condition and child order, and a decorator user neither', () => {
    const composite = readme({ names, hook: 'jsonata', controller: 'composite' });
    expect(composite).toContain('loom also writes a `Ready` condition on it (`readyCondition: true`)');
    expect(composite).toContain('`loom.dev/depends-on`');
    const decorator = readme({ names, hook: 'jsonata', controller: 'decorator' });
    expect(decorator).not.toContain('readyCondition');
    expect(decorator).not.toContain('loom.dev/wave');
  });
});
