import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The fault harness needs root, namespaces and Debian's PostgreSQL: `npm run test:reliability` runs it.
    exclude: [...configDefaults.exclude, 'test/reliability/harness/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/leak-check.ts'],
    testTimeout: 60_000,
    // A poll waits for what a user would see: on a loaded CI machine a page's first answer can take over
    // vitest's default second (a dashboard test's first list, CI run of 4b6f1d2). Failing polls still fail.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
})
