/**
 * `loom render` builds the hook request as `loom run` does, `readiness` included: each observed child
 * judged by its `loom.dev/ready-when` annotation, its type's `readyWhen`, else kstatus, in the same
 * evaluator processes as the hooks (docs/ordering-and-readiness.md, "What the hook sees").
 */
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { READY_WHEN_ANNOTATION } from '../api/index.ts';
import { caseDir, runWith } from './render.test-support.ts';

const args = ['--controller', 'controller.yaml', '--parent', 'parent.yaml', '--related', 'related.yaml', '--observed', 'observed.yaml'];

/** The jsonata fixture, its hook's status replaced by what it sees of readiness. */
function run(readyWhen: string) {
  return runWith(args, {
    dir: caseDir('jsonata'),
    edit: {
      'controller.yaml': (text) => text.replace('"replicas": parent.spec.replicas,', '"readiness": readiness, "configReady": $ready(children."ConfigMap.v1"."shop-config"),'),
      'observed.yaml': (text) => text.replace('  name: shop-env\n', `  name: shop-env\n  annotations:\n    ${READY_WHEN_ANNOTATION}: '${readyWhen}'\n`),
    },
  });
}

interface Report {
  status: { readiness: Record<string, Record<string, { status: string; message: string }>>; configReady: boolean };
}

describe('loom render: readiness in the request', () => {
  it('gives the hook each observed child\'s readiness, keyed as children, and $ready', async () => {
    const result = await run('data.MODE = "staging"');
    expect(result.code, result.stderr).toBe(0);
    const { status } = load(result.stdout) as Report;
    expect(status.configReady).toBe(true);
    expect(Object.keys(status.readiness).sort()).toEqual(['ConfigMap.v1', 'Deployment.apps/v1', 'Service.v1']);
    expect(status.readiness['ConfigMap.v1']).toMatchObject({
      'shop-config': { status: 'Current' },
      'shop-env': { status: 'InProgress', message: `annotation ${READY_WHEN_ANNOTATION} is false` },
    });
    // Children of other parents are not the hook's: neither in children nor in readiness.
    expect(status.readiness['ConfigMap.v1']).not.toHaveProperty('blog-config');
  });

  it('makes a child whose readyWhen fails Unknown, and the render still succeeds', async () => {
    const result = await run('$error("no mode")');
    expect(result.code, result.stderr).toBe(0);
    const { status } = load(result.stdout) as Report;
    expect(status.readiness['ConfigMap.v1']?.['shop-env']).toEqual({ status: 'Unknown', message: `annotation ${READY_WHEN_ANNOTATION}: JSONata error at line 1, column 1: no mode` });
  });
});
