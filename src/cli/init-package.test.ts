import { describe, expect, it } from 'vitest';
import type { HookLanguage } from './init-names.ts';
import { scaffoldNames } from './init-names.ts';
import { packageJson, scaffoldVersions } from './init-package.ts';

const names = scaffoldNames({ kind: 'Website', group: 'example.com', version: 'v1alpha1' });
const versions = scaffoldVersions({
  name: 'kube-loom',
  version: '1.2.3',
  dependencies: { 'kube-loom-sdk': '1.2.0' },
  devDependencies: { vitest: '5.1.1', typescript: '^6.0.3', '@types/node': '24.19.2' },
});

interface Manifest {
  name: string;
  scripts: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
}

function manifestOf(hook: HookLanguage): Manifest {
  return JSON.parse(packageJson({ names, hook, controller: 'composite' }, versions)) as Manifest;
}

describe('the scaffold package.json', () => {
  it('pins the loom that wrote the golden exactly, and allows compatible versions of the rest', () => {
    expect(versions).toEqual({ loom: '1.2.3', sdk: '^1.2.0', vitest: '^5.1.1', typescript: '^6.0.3', typesNode: '^24.19.2' });
  });

  it('falls back to npm\'s latest when loom\'s own manifest cannot be read', () => {
    expect(scaffoldVersions(undefined)).toEqual({ loom: 'latest', sdk: 'latest', vitest: 'latest', typescript: 'latest', typesNode: 'latest' });
  });

  it('needs only loom for a JSONata hook', () => {
    const manifest = manifestOf('jsonata');
    expect(manifest.name).toBe('website-controller');
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.devDependencies).toEqual({ 'kube-loom': '1.2.3' });
    expect(manifest.scripts).toEqual({
      validate: 'loom validate controller.yaml',
      render: 'loom render --controller controller.yaml --parent example.yaml',
      'test:golden': 'loom render --controller controller.yaml --parent example.yaml | diff -u render.golden.yaml -',
      'golden:update': 'loom render --controller controller.yaml --parent example.yaml > render.golden.yaml',
      test: 'npm run validate && npm run test:golden',
    });
  });

  it('runs, checks and tests a TypeScript hook, and renders through it', () => {
    const manifest = manifestOf('typescript');
    expect(manifest.dependencies).toEqual({ 'kube-loom-sdk': '^1.2.0' });
    expect(manifest.devDependencies).toEqual({ '@types/node': '^24.19.2', 'kube-loom': '1.2.3', typescript: '^6.0.3', vitest: '^5.1.1' });
    expect(manifest.scripts).toMatchObject({
      start: 'node hook.ts',
      typecheck: 'tsc',
      render: 'loom render --controller controller.yaml --parent example.yaml --hook-module hook.ts',
      test: 'npm run validate && tsc && vitest run && npm run test:golden',
    });
  });
});
