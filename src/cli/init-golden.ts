/**
 * The render golden of a `loom init` scaffold: what `loom render` prints for the example object,
 * rendered by the loom that writes the scaffold, so the two cannot disagree on format.
 */
import { controllerYaml, exampleYaml } from './init-manifests.ts';
import type { HookLanguage, Scaffold } from './init-names.ts';
import { formatReport, render } from './render.ts';

/** The golden's file name. */
export const GOLDEN_FILE = 'render.golden.yaml';

/** The arguments of `loom render` on a scaffold, as its package.json and README run it. */
export function renderArgs(hook: HookLanguage): string[] {
  return ['--controller', 'controller.yaml', '--parent', 'example.yaml', ...(hook === 'typescript' ? ['--hook-module', 'hook.ts'] : [])];
}

const ignore = { write: () => undefined };

/**
 * `loom render`'s output for the scaffold's example. A TypeScript hook cannot be loaded before
 * `npm install` has brought kube-loom-sdk, so its golden is rendered from the JSONata twin of the
 * controller: the two hooks answer alike (init's tests render both and compare).
 */
export async function renderGolden(scaffold: Scaffold): Promise<string> {
  const files = new Map([
    ['controller.yaml', controllerYaml({ ...scaffold, hook: 'jsonata' })],
    ['example.yaml', exampleYaml(scaffold.names)],
  ]);
  const readTextFile = async (path: string): Promise<string> => files.get(path) ?? Promise.reject(new Error(`${path}: not in the scaffold`));
  const report = await render({ controller: 'controller.yaml', parent: 'example.yaml', applyStrategy: 'server-side-apply' }, { stdout: ignore, stderr: ignore, readTextFile }, []);
  return formatReport(report);
}
