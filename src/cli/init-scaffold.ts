/**
 * The files of a `loom init` scaffold, by name, in the order they are written and listed. Nothing
 * here touches the disk: `init.ts` writes what this returns.
 */
import { GOLDEN_FILE, renderGolden } from './init-golden.ts';
import { hookTestTs, hookTs, tsconfigJson } from './init-hook.ts';
import { controllerYaml, crdYaml, exampleYaml } from './init-manifests.ts';
import type { Scaffold } from './init-names.ts';
import { gitignore, packageJson, type ScaffoldVersions } from './init-package.ts';
import { readme } from './init-readme.ts';

/** The file names of a scaffold, in order, without making their contents. */
export function scaffoldFileNames(scaffold: Scaffold): string[] {
  const hook = scaffold.hook === 'typescript' ? ['hook.ts', 'hook.test.ts', 'tsconfig.json'] : [];
  return ['crd.yaml', 'controller.yaml', ...hook, 'example.yaml', GOLDEN_FILE, 'package.json', '.gitignore', 'README.md'];
}

/** Every file of the scaffold: name → content. */
export async function scaffoldFiles(scaffold: Scaffold, versions: ScaffoldVersions): Promise<Map<string, string>> {
  const contents: Record<string, () => string | Promise<string>> = {
    'crd.yaml': () => crdYaml(scaffold),
    'controller.yaml': () => controllerYaml(scaffold),
    'hook.ts': () => hookTs(scaffold),
    'hook.test.ts': () => hookTestTs(scaffold),
    'tsconfig.json': tsconfigJson,
    'example.yaml': () => exampleYaml(scaffold.names),
    [GOLDEN_FILE]: () => renderGolden(scaffold),
    'package.json': () => packageJson(scaffold, versions),
    '.gitignore': gitignore,
    'README.md': () => readme(scaffold),
  };
  const names = scaffoldFileNames(scaffold);
  return new Map(await Promise.all(names.map(async (name): Promise<[string, string]> => [name, await contents[name]!()])));
}
