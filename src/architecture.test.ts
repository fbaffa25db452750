/**
 * The import rules of docs/architecture.md ("Import rules"), checked on every source file so a broken
 * rule fails the build: `api` and `engine` import nothing internal; `core` and `kube` import only
 * `api`, `hooks` only `api`; nothing but `main.ts` and `cli/` imports `controllers`; only `kube/` imports the
 * Kubernetes client. The hook SDK (`sdk/`, shipped to users as `kube-loom-sdk`) imports only `api`,
 * fastify and pino, and nothing in `src/` imports it (examples and tests do).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));
const KUBE_CLIENT = '@kubernetes/client-node';
/** The packages built from `src/`: importing them by name from inside `src/` would slip past the folder rules. */
const SELF = ['kube-loom', 'kube-loom-sdk'];

/** Internal folders each restricted folder may import (besides itself). */
const ALLOWED: Record<string, readonly string[]> = {
  api: [],
  engine: [],
  core: ['api'],
  hooks: ['api'],
  kube: ['api'],
  sdk: ['api'],
  // One sync per controller kind, written against ports: it reads and writes only through them
  // (apply/ for the error class of a write not attempted, which its failure message counts; hooks/
  // for the runner a hook call is made through).
  sync: ['api', 'core', 'engine', 'apply', 'hooks'],
  // The syncs over files and read-only lists (loom render, loom plan): no cluster writes, no commands.
  offline: ['api', 'core', 'engine', 'hooks', 'sync'],
  // Controllers report to the metrics; the servers only serve what they are handed.
  metrics: ['api', 'hooks'],
  server: [],
};

/** Packages each restricted folder may import (besides `node:` built-ins); other folders are not limited. */
const ALLOWED_PACKAGES: Record<string, readonly string[]> = {
  sdk: ['fastify', 'pino', '@opentelemetry/api'],
};

interface SourceFile {
  /** Path relative to `src/`, with `/` separators. */
  path: string;
  /** Import specifiers as written. */
  imports: string[];
}

/** Top-level folder of a `src/`-relative path; `''` for files directly in `src/`. */
function folderOf(path: string): string {
  return path.includes('/') ? path.slice(0, path.indexOf('/')) : '';
}

function isKubeClient(specifier: string): boolean {
  return specifier === KUBE_CLIENT || specifier.startsWith(`${KUBE_CLIENT}/`);
}

function mayImportControllers(file: SourceFile): boolean {
  return file.path === 'main.ts' || folderOf(file.path) === 'cli';
}

/** `fastify` for `fastify`, `@scope/name` for `@scope/name/sub`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

function packageViolationOf(file: SourceFile, specifier: string): string | undefined {
  const from = folderOf(file.path);
  if (isKubeClient(specifier)) return from === 'kube' ? undefined : `${file.path} imports ${KUBE_CLIENT}; only kube/ may`;
  if (SELF.includes(packageOf(specifier))) return `${file.path} imports ${specifier}; src/ imports its own folders by relative path`;
  const allowed = ALLOWED_PACKAGES[from];
  if (allowed === undefined || specifier.startsWith('node:') || allowed.includes(packageOf(specifier))) return undefined;
  return `${file.path} imports ${specifier}; ${from}/ may import only the packages ${allowed.join(', ')}`;
}

function violationOf(file: SourceFile, specifier: string): string | undefined {
  const from = folderOf(file.path);
  if (!specifier.startsWith('.')) return packageViolationOf(file, specifier);
  const target = relative(SRC, resolve(SRC, dirname(file.path), specifier)).replaceAll('\\', '/');
  const to = folderOf(target);
  if (to === from) return undefined;
  if (to === 'sdk') return `${file.path} imports ${target}; nothing in src/ may import sdk/ (examples and tests may)`;
  if (to === 'controllers' && !mayImportControllers(file)) {
    return `${file.path} imports ${target}; only main.ts and cli/ may import controllers/`;
  }
  const allowed = ALLOWED[from];
  if (allowed?.some((folder) => folder === to || target.startsWith(`${folder}/`)) === false) return `${file.path} imports ${target}; ${from}/ may import only ${allowed.join(', ') || 'itself'}`;
  return undefined;
}

/** Every broken rule, one message each. */
function findViolations(files: readonly SourceFile[]): string[] {
  return files.flatMap((file) => file.imports.map((s) => violationOf(file, s)).filter((v) => v !== undefined));
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;

function importsOf(text: string): string[] {
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

function sourceFiles(dir: string): SourceFile[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    // Fixtures stand for users' code (a hook module for `loom render`, say), which may import kube-loom-sdk.
    if (entry.isDirectory()) return entry.name === 'testdata' ? [] : sourceFiles(full);
    // Tests may reach across folders to build fixtures; the rules are about production code.
    if (!entry.name.endsWith('.ts') || /\.test(-support)?\.ts$/.test(entry.name)) return [];
    return [{ path: relative(SRC, full).replaceAll('\\', '/'), imports: importsOf(readFileSync(full, 'utf8')) }];
  });
}

describe('import rules', () => {
  it('hold for every source file', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(0);
    expect(findViolations(files)).toEqual([]);
  });

  it('catch each kind of violation', () => {
    expect(findViolations([
      { path: 'core/claim.ts', imports: ['../kube/store.ts', '../api/types.ts', './plan.ts'] },
      { path: 'hooks/helpers.ts', imports: ['../api/readiness/index.ts', '../core/index.ts'] },
      { path: 'engine/queue.ts', imports: ['../api/keys.ts', 'node:events'] },
      { path: 'apply/run.ts', imports: [KUBE_CLIENT, '../controllers/composite.ts'] },
      { path: 'kube/client.ts', imports: [KUBE_CLIENT, '../api/types.ts'] },
      { path: 'cli/run.ts', imports: ['../controllers/index.ts'] },
      { path: 'sdk/server.ts', imports: ['fastify', 'pino', 'node:fs', '../api/index.ts', '../hooks/index.ts', 'jsonata', '@scope/pkg/sub'] },
      { path: 'server/app.ts', imports: ['../sdk/index.ts', 'fastify', 'pino', 'kube-loom-sdk'] },
    ])).toEqual([
      'core/claim.ts imports kube/store.ts; core/ may import only api',
      'hooks/helpers.ts imports core/index.ts; hooks/ may import only api',
      'engine/queue.ts imports api/keys.ts; engine/ may import only itself',
      `apply/run.ts imports ${KUBE_CLIENT}; only kube/ may`,
      'apply/run.ts imports controllers/composite.ts; only main.ts and cli/ may import controllers/',
      'sdk/server.ts imports hooks/index.ts; sdk/ may import only api',
      'sdk/server.ts imports jsonata; sdk/ may import only the packages fastify, pino, @opentelemetry/api',
      'sdk/server.ts imports @scope/pkg/sub; sdk/ may import only the packages fastify, pino, @opentelemetry/api',
      'server/app.ts imports sdk/index.ts; nothing in src/ may import sdk/ (examples and tests may)',
      'server/app.ts imports kube-loom-sdk; src/ imports its own folders by relative path',
    ]);
  });

  it('read static, side-effect and dynamic imports', () => {
    const text = "import { a } from './a.ts';\nexport { b } from '../b.ts';\nimport './c.ts';\nconst d = await import('./d.ts');\nimport type { E } from 'e';";
    expect(importsOf(text).sort()).toEqual(['../b.ts', './a.ts', './c.ts', './d.ts', 'e']);
  });
});
