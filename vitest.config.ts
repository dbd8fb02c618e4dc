import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The watchdog names, while it runs, a test file that has run for over 5 minutes (a test stuck
    // in synchronous code outlives testTimeout and would otherwise show nothing until CI's limit).
    reporters: ['default', './scripts/test-watchdog/watchdog.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['app/**/*.test.ts', 'main/**/*.test.ts', 'scripts/**/*.test.ts', 'renderer/**/*.test.ts', 'e2e/support/**/*.test.ts'],
          environment: 'node',
          // fast-check: a fixed seed in CI, a new one per local run (FC_SEED=N reproduces one).
          setupFiles: ['./scripts/test-setup/fast-check-seed.ts'],
          testTimeout: 60_000,
          // Store tests start a real host process in beforeAll; on a loaded machine that takes a while.
          hookTimeout: 60_000,
        },
      },
      {
        // Browser end-to-end tests: a real host process and a headless Chromium (the system's, or
        // the one npm installed: e2e/support/browser.ts, chosen once per run in the global setup).
        // They need the built console (npm run build:renderer runs first in npm test). One file
        // at a time: each starts its own host and browser, and the machine has two cores.
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          globalSetup: ['e2e/support/global-setup.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 90_000,
          // expect.poll waits for what the page shows once live events or a poll land; vitest's
          // default of 1 s is a race on a loaded CI machine. A poll that needs longer says so.
          expect: { poll: { timeout: 15_000 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
