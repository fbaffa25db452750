/**
 * What `loom types` is for: a hook written against the generated module type-checks under the
 * repository's compiler options, with `kube-loom-sdk` as its only dependency, and each kind of
 * mistake the types exist to catch fails to. The module and the hook live in memory, at paths under
 * testdata/types so that `kube-loom-sdk` resolves as it does for a user's project.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { generateTypes } from './types.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIR = fileURLToPath(new URL('testdata/types/', import.meta.url));
const TYPES_FILE = `${DIR}in-memory-types.ts`;

/** A hook using every generated type of the fixture the way a hook author would. */
const HOOK = `import { createHookServer, desired, observedChild } from 'kube-loom-sdk';
import type {
  WidgetControllerCustomizeRequest, WidgetControllerRequest, WidgetControllerResponse, WidgetLabellerRequest, WidgetLabellerResponse, WidgetV1,
} from './in-memory-types.ts';

export function sync(request: WidgetControllerRequest): WidgetControllerResponse {
  const { size, replicas = 1, labels } = request.parent.spec;
  const existing = observedChild(request, 'ConfigMap.v1', 'settings');
  return {
    status: { ready: existing !== undefined, phase: 'Pending' },
    children: [
      desired({ apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', labels, data: { size, replicas: String(replicas) } }),
      desired({ apiVersion: 'v1', kind: 'Secret', name: 'token', stringData: { token: 'secret' } }),
    ],
  };
}

export function customize(request: WidgetControllerCustomizeRequest) {
  return { relatedResources: [{ apiVersion: 'v1', resource: 'secrets', names: [request.parent.spec.size] }] };
}

export function label(request: WidgetLabellerRequest): WidgetLabellerResponse {
  return { labels: { decorated: request.object.kind === 'Deployment' ? 'deployment' : 'widget' } };
}

export const copy = desired<WidgetV1>({ apiVersion: 'example.com/v1', kind: 'Widget', name: 'copy', spec: { size: 'small', port: 80 } });

createHookServer({ composite: { sync, customize }, decorator: { sync: label } });
`;

/** The repository's compiler options: strict, exactOptionalPropertyTypes and the rest. */
function compilerOptions(): ts.CompilerOptions {
  const config: unknown = ts.readConfigFile(`${ROOT}tsconfig.json`, (path) => ts.sys.readFile(path)).config;
  return ts.parseJsonConfigFileContent(config, ts.sys, ROOT).options;
}

/** A host that serves `files` from memory and everything else from disk. */
function inMemoryHost(options: ts.CompilerOptions, files: ReadonlyMap<string, string>): ts.CompilerHost {
  const disk = ts.createCompilerHost(options);
  return {
    ...disk,
    fileExists: (path) => files.has(path) || disk.fileExists(path),
    readFile: (path) => files.get(path) ?? disk.readFile(path),
    getSourceFile: (path, language, ...rest) => {
      const text = files.get(path);
      return text === undefined ? disk.getSourceFile(path, language, ...rest) : ts.createSourceFile(path, text, language);
    },
  };
}

/**
 * Type-checks each hook against `types` in one program (each hook its own module, so one's errors
 * cannot hide another's); the messages of each hook's errors, in order, and of any elsewhere.
 */
function typeErrors(types: string, hooks: readonly string[]): { hooks: string[][]; elsewhere: string[] } {
  const options = compilerOptions();
  const hookFile = (i: number) => `${DIR}in-memory-hook-${i}.ts`;
  const files = new Map([[TYPES_FILE, types], ...hooks.map((hook, i): [string, string] => [hookFile(i), hook])]);
  const program = ts.createProgram({ rootNames: hooks.map((_hook, i) => hookFile(i)), options, host: inMemoryHost(options, files) });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const messages = (inFile: (name: string | undefined) => boolean) =>
    diagnostics.filter((d) => inFile(d.file?.fileName)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  return { hooks: hooks.map((_hook, i) => messages((name) => name === hookFile(i))), elsewhere: messages((name) => !files.has(name ?? '') || name === TYPES_FILE) };
}

/** Mistakes the generated types catch: what each changes in {@link HOOK}, and part of the error. */
const MISTAKES: readonly [mistake: string, from: string, to: string, message: string][] = [
  ['a misspelt spec field', 'const { size, replicas', 'const { sise, replicas', "Property 'sise' does not exist"],
  ['a misspelt child field', 'stringData: {', 'stringDate: {', "'stringDate' does not exist"],
  ['a child field of the wrong type', 'replicas: String(replicas)', 'replicas', "Type 'number' is not assignable to type 'string'"],
  ['a child type the controller does not have', "kind: 'Secret'", "kind: 'Service'", '"Service"'],
  ['a status value outside its enum', "phase: 'Pending'", "phase: 'Done'", '"Done"'],
  ['a children key the controller does not have', "'ConfigMap.v1', 'settings'", "'Pod.v1', 'settings'", '"Pod.v1"'],
  ['a required spec field left out of a desired parent', "spec: { size: 'small', port: 80 }", 'spec: { port: 80 }', "Property 'size' is missing"],
];

// The type-check is synchronous, so no test timeout could stop it midway, and it ends by itself: the
// bound only has to let it finish. It took 85 s beside two busy loops on a loaded 2-core machine.
describe('a hook typed by loom types', { timeout: 600_000 }, () => {
  // One program for every case: type-checking loads the SDK's and fastify's declarations, which is slow.
  let checking: ReturnType<typeof check> | undefined;
  const check = async () => typeErrors(await generateTypes({ files: ['src/cli/testdata/types/widgets.yaml'] }, { cwd: ROOT }), [
    HOOK, ...MISTAKES.map(([, from, to]) => HOOK.replace(from, to)),
  ]);
  const checked = () => (checking ??= check());

  it('type-checks, and so does the generated module', async () => {
    const { hooks, elsewhere } = await checked();
    expect(elsewhere).toEqual([]);
    expect(hooks[0]).toEqual([]);
  });

  it.each(MISTAKES.map(([mistake, from, to, message], i) => ({ mistake, from, to, message, hook: i + 1 })))('fails for $mistake', async ({ from, to, message, hook }) => {
    expect(HOOK.replace(from, to)).not.toBe(HOOK);
    const errors = (await checked()).hooks[hook] ?? [];
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toContain(message);
  });
});
