import { defineConfig } from 'vitest/config';

// Two suites: `unit` needs no cluster; `integration` runs against one real local control plane per
// test run, started by the global setup.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'examples/**/*.test.ts', 'controllers/**/*.test.ts', 'charts/**/*.test.ts'],
          // A guard against hangs, not a speed target: some unit tests start a Node process, which takes
          // seconds on a busy 2-core machine, and no test may fail because the machine is slow.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          // Two files at a time, also on 2 cores (the default there is one): integration tests mostly wait
          // on the API server and on loom, so a second file fills the waits; files isolate themselves by
          // namespace and label. A group of its own, since its worker count differs from the unit suite's.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
