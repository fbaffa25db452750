/**
 * `loom plan`, as a CI job runs it on a manifest from a pull request, against the real control
 * plane: a sync expression that would take down a host evaluating it in its own process (one that
 * builds a value too large for V8, one that backtracks for minutes in one native call) ends the plan
 * with a clear error naming the parent, the hook and the bound, exit 1, and no native crash report.
 * How long each run took is printed for the record, never asserted.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { HOSTILE_EXPRESSIONS, hostileController, NATIVE_CRASH } from '../src/cli/hostile-expressions.test-support.ts';
import { loomCommands } from '../src/cli/loom-command.test-support.ts';
import { createTestNamespace, testKubeConfig } from './support/cluster.ts';
import { testClients } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, type ParentKind } from './support/test-crd.ts';

const KIND: ParentKind = { plural: 'boundedplans', kind: 'BoundedPlan' };
const commands = loomCommands();
let namespace: string;
let dir: string;

beforeAll(async () => {
  const clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), 'loom-plan-bounds');
  await createParentCrd(clients, KIND);
  await clients.apply({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'pr', namespace }, spec: {} });
  dir = await mkdtemp(join(tmpdir(), 'loom-plan-bounds-'));
  for (const [name, hostile] of Object.entries(HOSTILE_EXPRESSIONS)) {
    await writeFile(join(dir, `${name}.yaml`), hostileController(name, { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural }, hostile));
  }
});

afterEach(() => commands.stopAll());

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each(Object.entries(HOSTILE_EXPRESSIONS))('loom plan with the %s expression', (name, { failure }) => {
  it('ends with an error naming the parent, the hook and the bound, not a crash', async () => {
    const run = await commands.run(['plan', '--controller', join(dir, `${name}.yaml`), '--kubeconfig', inject('kubeconfigPath')]);
    // A figure to report, never asserted: how long a CI job waits for the verdict.
    console.info(`loom plan, ${name} expression: exit ${run.code ?? run.signal} after ${Math.round(run.elapsedMs)} ms`);
    expect(run.stderr).not.toMatch(NATIVE_CRASH);
    expect(run.stderr).toMatch(failure);
    expect(run.stderr).toContain(`${KIND.kind} ${namespace}/pr: sync hook: `);
    expect({ code: run.code, signal: run.signal, stdout: run.stdout }).toEqual({ code: 1, signal: null, stdout: '' });
  });
});
