/**
 * One real control plane per integration run (starting one costs seconds; tests isolate themselves
 * by namespace). Tests reach it through `inject('kubeconfigPath')`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { TestProject } from 'vitest/node';
import { crdManifests } from '../src/cli/install-crds.ts';
import { systemClock } from '../src/engine/clock.ts';
import { ensureBinaries, startControlPlane } from '../src/devcluster/index.ts';
import { shelfCrds } from './support/shelf-crds.ts';
import { parentCrd, TEST_PARENT_KINDS } from './support/test-crd.ts';

declare module 'vitest' {
  interface ProvidedContext {
    kubeconfigPath: string;
    /** Where `test/support/packages.ts` packs the packages once for the whole run. */
    packagesDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const logger = pino({ level: 'warn' });
  // CRDs exist before the controller-manager starts, so garbage collection knows their kinds at once.
  // The shelf's and the examples' CRDs (controllers/*/crd.yaml, examples/*/crd.yaml) too, so their
  // tests find their kinds served.
  const crds = [
    ...(await crdManifests()), ...Object.values(TEST_PARENT_KINDS).map(parentCrd),
    ...(await shelfCrds()), ...(await shelfCrds(new URL('../examples/', import.meta.url))),
  ];
  // A first run builds the control plane for many minutes: its progress lines show that it is not hung.
  const binaries = await ensureBinaries((line) => process.stderr.write(`${line}\n`));
  const startedAt = systemClock.now();
  const plane = await startControlPlane({ logger, crds, binaries });
  // Printed, not asserted: how long the shared control plane took is a figure to watch, not a test.
  report(`control plane started in ${seconds(systemClock.now() - startedAt)}`);
  project.provide('kubeconfigPath', plane.kubeconfigPath);
  const scratch = await mkdtemp(join(tmpdir(), 'loom-integration-'));
  project.provide('packagesDir', join(scratch, 'packages'));
  return async () => {
    // Keep the control plane's logs when a test failed: they often hold the reason.
    const failed = project.vitest.state.getCountOfFailedTests() > 0;
    await rm(scratch, { recursive: true, force: true });
    const stoppingAt = systemClock.now();
    await plane.stop({ keepLogs: failed });
    report(`control plane stopped in ${seconds(systemClock.now() - stoppingAt)}`);
  };
}

function report(line: string): void {
  process.stderr.write(`[global-setup] ${line}\n`);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
