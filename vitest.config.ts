import { defineConfig } from 'vitest/config';

// Two suites: `unit` needs no cluster; `integration` runs against one real local control plane per
// test run, started by the global setup.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts', 'examples/**/*.test.ts', 'controllers/**/*.test.ts', 'charts/**/*.test.ts'] } },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
