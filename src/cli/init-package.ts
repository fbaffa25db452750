/**
 * The npm side of a `loom init` scaffold, for either hook choice: `loom` itself is an npm package, so
 * a package.json pins the loom the render golden was made with (its output format may change between
 * versions) and gives both choices the same commands, `npm test` first among them.
 */
import { GOLDEN_FILE, renderArgs } from './init-golden.ts';
import type { Scaffold } from './init-names.ts';
import type { LoomManifest } from './usage.ts';

/** The package versions a scaffold depends on. */
export interface ScaffoldVersions {
  loom: string;
  sdk: string;
  vitest: string;
  typescript: string;
  typesNode: string;
}

/**
 * The versions this loom was released and tested with, from its package.json; a package missing
 * there (a manifest that could not be read) gets npm's `latest`.
 */
export function scaffoldVersions(manifest: LoomManifest | undefined): ScaffoldVersions {
  const packages: Record<string, string | undefined> = { ...manifest?.dependencies, ...manifest?.devDependencies };
  const caret = (name: string) => {
    const version = packages[name];
    return version === undefined ? 'latest' : `^${version.replace(/^\^/, '')}`;
  };
  return {
    loom: manifest?.version ?? 'latest',
    sdk: caret('kube-loom-sdk'),
    vitest: caret('vitest'),
    typescript: caret('typescript'),
    typesNode: caret('@types/node'),
  };
}

/** The npm scripts: the same names for both hook choices, so the README reads the same. */
function scripts(scaffold: Scaffold): Record<string, string> {
  const render = ['loom render', ...renderArgs(scaffold.hook)].join(' ');
  const common = {
    validate: 'loom validate controller.yaml',
    render,
    'test:golden': `${render} | diff -u ${GOLDEN_FILE} -`,
    'golden:update': `${render} > ${GOLDEN_FILE}`,
  };
  return scaffold.hook === 'jsonata'
    ? { ...common, test: 'npm run validate && npm run test:golden' }
    : { start: 'node hook.ts', typecheck: 'tsc', ...common, test: 'npm run validate && tsc && vitest run && npm run test:golden' };
}

/** `package.json`. */
export function packageJson(scaffold: Scaffold, versions: ScaffoldVersions): string {
  const { kind, crdName, controllerName } = scaffold.names;
  const typescript = scaffold.hook === 'typescript';
  const manifest = {
    name: controllerName,
    version: '0.1.0',
    private: true,
    description: `A loom controller for ${kind} (${crdName}).`,
    type: 'module',
    scripts: scripts(scaffold),
    ...(typescript ? { dependencies: { 'kube-loom-sdk': versions.sdk } } : {}),
    devDependencies: typescript
      ? { '@types/node': versions.typesNode, 'kube-loom': versions.loom, typescript: versions.typescript, vitest: versions.vitest }
      : { 'kube-loom': versions.loom },
    engines: { node: '>=24' },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** `.gitignore`: what `npm install` adds. */
export function gitignore(): string {
  return 'node_modules/\n';
}
