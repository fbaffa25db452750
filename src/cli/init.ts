/**
 * `loom init`: scaffolds a controller for a new kind into a directory — CRD, controller, hook, an
 * example object, a render golden with the npm test that checks it, and a README — so that
 * `npm test` and `loom render` work on it before anything is changed.
 *
 * Exit codes: 0 written; 2 bad flags, a non-empty directory without `--force`, or a file where the
 * directory should be (nothing written then); a file that cannot be written rejects, and `loom`
 * exits 1 with the error.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { commandOptions } from './command-options.ts';
import { FlagError, parseGoFlags, type FlagSpec } from './go-flags.ts';
import {
  groupProblem, kindProblem, scaffoldNames, versionProblem, type ControllerKind, type HookLanguage, type Scaffold,
} from './init-names.ts';
import { scaffoldVersions } from './init-package.ts';
import { scaffoldFileNames, scaffoldFiles } from './init-scaffold.ts';
import { loomManifest } from './usage.ts';

/** The help text of `loom init`. */
export const INIT_USAGE = `usage: loom init [DIR] --kind KIND [--group GROUP] [--version VERSION]
                 [--hook jsonata|typescript] [--decorator] [--force]

Scaffolds a controller into DIR (default: the current directory), which must be empty: a CRD, a
CompositeController (a DecoratorController with --decorator), its sync hook, an example object,
render.golden.yaml (what \`loom render\` prints for the example) with an \`npm test\` that checks it,
and a README. As written, each object of the kind gets a ConfigMap holding its spec.message.

  --kind KIND         the new type's kind in UpperCamelCase, e.g. Website; the plural (websites),
                      the controller's name (website-controller) and the rest derive from it
  --group GROUP       its API group [example.com]
  --version VERSION   its API version [v1alpha1]
  --hook LANGUAGE     jsonata: an expression inside the controller, nothing to run beside loom;
                      typescript: hook.ts on kube-loom-sdk, with its vitest unit test [jsonata]
  --decorator         a DecoratorController attaching the ConfigMap, instead of a CompositeController
  --force             write into a non-empty DIR, replacing the files of the scaffold found there

Exit 2 for bad flags, a non-empty DIR without --force, or a DIR that is a file; nothing is
written then.
`;

const INIT_FLAGS: FlagSpec = {
  kind: 'string', group: 'string', version: 'string', hook: 'string', decorator: 'bool', force: 'bool', h: 'bool', help: 'bool',
};

const HOOKS: readonly HookLanguage[] = ['jsonata', 'typescript'];

/** Where `loom init` writes its messages; tests pass their own. */
export interface InitIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** What DIR is relative to. */
  cwd: string;
}

/** The flags of one init. */
export interface InitOptions {
  scaffold: Scaffold;
  /** As given (`.` by default), for messages. */
  dir: string;
  force: boolean;
}

function isHookLanguage(hook: string): hook is HookLanguage {
  return (HOOKS as readonly string[]).includes(hook);
}

/** The scaffold the flags ask for. Throws {@link FlagError} naming every problem at once. */
function scaffoldOf(values: ReadonlyMap<string, string>): Scaffold {
  const kind = values.get('kind');
  if (!kind) throw new FlagError('--kind is required, e.g. --kind Website');
  const type = { kind, group: values.get('group') ?? 'example.com', version: values.get('version') ?? 'v1alpha1' };
  const hook = values.get('hook') ?? 'jsonata';
  const hookProblem = isHookLanguage(hook) ? undefined : `--hook: "${hook}" is not one of ${HOOKS.join(', ')}`;
  const problems = [kindProblem(type.kind), groupProblem(type.group), versionProblem(type.version), hookProblem].filter((p) => p !== undefined);
  // A bad hook is among the problems; testing it again only tells the compiler `hook` is good below.
  if (problems.length > 0 || !isHookLanguage(hook)) throw new FlagError(problems.join('\n'));
  const controller: ControllerKind = values.get('decorator') === 'true' ? 'decorator' : 'composite';
  return { names: scaffoldNames(type), hook, controller };
}

/** Reads the flags; `help` for `-h`/`--help`. Throws {@link FlagError} for anything wrong. */
export function initOptions(args: readonly string[]): InitOptions | 'help' {
  const { values, positionals } = parseGoFlags(args, INIT_FLAGS);
  if (values.get('h') === 'true' || values.get('help') === 'true') return 'help';
  if (positionals.length > 1) throw new FlagError(`expected one directory, got ${positionals.length}: ${positionals.join(' ')}`);
  return { scaffold: scaffoldOf(values), dir: positionals[0] ?? '.', force: values.get('force') === 'true' };
}

/** The entries of `dir` (`[]` when it does not exist yet); `undefined` when it is not a directory. */
async function entriesOf(dir: string): Promise<string[] | undefined> {
  return readdir(dir).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    if (code === 'ENOTDIR') return undefined;
    throw error;
  });
}

/** The entries already in `dir` when init may write there, or why it may not. */
async function destination(options: InitOptions, dir: string): Promise<{ existing: string[] } | { refusal: string }> {
  const entries = await entriesOf(dir);
  if (entries === undefined) return { refusal: `${options.dir} is not a directory` };
  // A freshly cloned empty repository holds only .git: it is as good as empty.
  const existing = entries.filter((name) => name !== '.git').sort();
  if (existing.length === 0 || options.force) return { existing };
  const replaced = scaffoldFileNames(options.scaffold).filter((name) => existing.includes(name));
  const effect = replaced.length === 0 ? 'no file of it would be replaced' : `it would replace ${replaced.join(', ')}`;
  return { refusal: `${options.dir} is not empty; --force writes the scaffold into it anyway (${effect}; other files stay)` };
}

/** What was written and what to do next. */
function summary(options: InitOptions, written: readonly string[], existing: readonly string[]): string {
  const { scaffold } = options;
  const { kind, apiVersion } = scaffold.names;
  const type = scaffold.controller === 'composite' ? 'CompositeController' : 'DecoratorController';
  const hook = scaffold.hook === 'jsonata' ? 'a JSONata hook' : 'a TypeScript hook';
  const where = options.dir;
  const lines = [
    `loom init: a ${type} for ${kind} (${apiVersion}) with ${hook}, in ${where}:`,
    ...written.map((name) => `  ${name}${existing.includes(name) ? ' (replaced)' : ''}`),
    '',
    'next:',
    ...(where === '.' ? [] : [`  cd ${where}`]),
    '  npm install',
    `  npm test                 # loom validate, ${scaffold.hook === 'typescript' ? 'tsc, the hook\'s unit tests, ' : ''}loom render against render.golden.yaml`,
    '  npx loom dev             # a local control plane running loom (any cluster: npx loom install-crds && npx loom run)',
    '  kubectl apply -f crd.yaml -f controller.yaml',
    ...(scaffold.hook === 'typescript' ? ['  npm start                # serves hook.ts where controller.yaml\'s url points'] : []),
    '  kubectl apply -f example.yaml',
    'README.md says more.',
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes the scaffold; resolves to the files written, in order. */
async function writeScaffold(options: InitOptions, dir: string): Promise<string[]> {
  const files = await scaffoldFiles(options.scaffold, scaffoldVersions(await loomManifest()));
  await mkdir(dir, { recursive: true });
  for (const [name, content] of files) await writeFile(join(dir, name), content);
  return [...files.keys()];
}

/** `loom init ARGS…`: writes the scaffold or says why not; resolves to the exit code. */
export async function runInit(args: readonly string[], io: InitIO): Promise<number> {
  const options = commandOptions({ name: 'init', parse: initOptions, usage: INIT_USAGE }, args, io);
  if ('exit' in options) return options.exit;
  const dir = resolve(io.cwd, options.dir);
  const target = await destination(options, dir);
  if ('refusal' in target) {
    io.stderr.write(`loom init: ${target.refusal}\n`);
    return 2;
  }
  const written = await writeScaffold(options, dir);
  io.stdout.write(summary(options, written, target.existing));
  return 0;
}
