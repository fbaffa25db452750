/**
 * A parent without `metadata.namespace`, as example files are usually written: `loom render` defaults
 * it to `default`, as `kubectl apply` would for a namespaced type, unless the type is known to be
 * cluster-scoped (a CRD given with the controller, or a built-in).
 */
import { describe, expect, it } from 'vitest';
import { runWith } from './render.test-support.ts';

const REPO = new URL('../../', import.meta.url);
const run = (args: string[]) => runWith(args, { dir: REPO });

describe('loom render: the parent\'s namespace', () => {
  it('renders the shipped web-app controller for its namespace-less example parent in namespace default', async () => {
    const result = await run(['--controller', 'controllers/web-app/controller.yaml', '--parent', 'controllers/web-app/webapp.yaml']);
    expect(result.stderr).toContain('note: controllers/web-app/webapp.yaml: metadata.namespace is not set; using "default", as kubectl does');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/kind: Deployment\n {4}metadata:\n(?: {6}.*\n)*? {6}namespace: default\n/);
  });

  it('leaves a parent of a cluster-scoped type without a namespace', async () => {
    const result = await run(['--controller', 'controllers/namespace-defaults/controller.yaml', '--parent', 'controllers/namespace-defaults/namespace.yaml']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('metadata.namespace is not set');
  });
});
