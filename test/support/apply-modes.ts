/**
 * One controller manifest run under both apply strategies side by side: a host per strategy, each
 * running its own copy of the controller for the parents labelled `apply: <mode>`.
 */
import { load } from 'js-yaml';
import type { KubeObject } from '../../src/api/index.ts';
import { startTestLoom, type TestClients, type TestLoom } from './loom.ts';

/** The apply strategies, with the short name that labels their hosts, controllers and parents. */
export const APPLY_MODES = [
  { mode: 'ssa', applyStrategy: 'server-side-apply' },
  { mode: 'dynamic', applyStrategy: 'dynamic-apply' },
] as const;

/** The short name of an apply strategy. */
export type ApplyMode = (typeof APPLY_MODES)[number]['mode'];

/**
 * The controller of a YAML manifest (a CompositeController) for the host of `mode`: named
 * `<name>-<mode>`, labelled `loom-test: <label>-<mode>`, taking the parents labelled `apply: <mode>`.
 */
export function controllerForMode(manifest: string, label: string, mode: ApplyMode): KubeObject {
  const controller = load(manifest) as KubeObject & { spec: { parentResource: Record<string, unknown> } };
  return {
    ...controller,
    metadata: { ...controller.metadata, name: `${controller.metadata.name}-${mode}`, labels: { 'loom-test': `${label}-${mode}` } },
    spec: { ...controller.spec, parentResource: { ...controller.spec.parentResource, labelSelector: { matchLabels: { apply: mode } } } },
  };
}

/** Starts a host per apply strategy and applies the manifest's controller for each; stop the hosts returned. */
export async function startModeHosts(clients: TestClients, label: string, manifest: string): Promise<TestLoom[]> {
  const hosts: TestLoom[] = [];
  for (const { mode, applyStrategy } of APPLY_MODES) {
    hosts.push(await startTestLoom(`${label}-${mode}`, { applyStrategy }));
    await clients.apply(controllerForMode(manifest, label, mode));
  }
  return hosts;
}
