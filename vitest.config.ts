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
          // expect.poll waits for a state; its default deadline of 1 s is a speed target a loaded machine
          // misses (a local HTTP round trip, a log line through a stream), so it gets the same guard.
          expect: { poll: { timeout: 30_000 } },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          // vitest's default worker count is kept (one file at a time on 2 cores): on a loaded 2-core
          // machine two at a time cut the run by only about a tenth and doubled the tests that ran out
          // of time, since each file's loom and hooks then share the cores with another's.
          // Guards against hangs, not speed targets: a test may chain several waits for states, each
          // guarded by its own 30 s or more, and a loaded 2-core machine needs the sum.
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
