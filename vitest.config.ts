import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The fault harness needs root, namespaces and Debian's PostgreSQL: `npm run test:reliability` runs it.
    exclude: [...configDefaults.exclude, 'test/reliability/harness/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/leak-check.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
})
