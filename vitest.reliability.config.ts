import { defineConfig } from 'vitest/config'

// The fault harness of issue 38 (test/reliability/harness/), run by `npm run test:reliability`: one test,
// its own PostgreSQL pair (no global setup), its output streamed as it runs.
export default defineConfig({
  test: {
    include: ['test/reliability/harness/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    hookTimeout: 120_000,
    disableConsoleIntercept: true,
  },
})
