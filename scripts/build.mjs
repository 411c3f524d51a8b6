// npm run build: compile TypeScript to dist/, copy the SQL files next to the compiled modules, build the
// dashboard into dist/dashboard/ (scripts/build-dashboard.mjs), and regenerate oclif.manifest.json from the
// compiled commands.
import { execFileSync } from 'node:child_process'
import { cpSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { buildDashboard, FIRST_LOAD_BUDGET_BYTES } from './build-dashboard.mjs'
import { renderManifest, repoRoot } from './manifest.mjs'

rmSync(path.join(repoRoot, 'dist'), { recursive: true, force: true })
execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
  cwd: repoRoot,
  stdio: 'inherit',
})
for (const dir of [
  'broker/schema',
  'broker/db/queries',
  'gateway/schema',
  'gateway/db/queries',
  'cli/sql',
  'platform/postgres/sql',
]) {
  cpSync(path.join(repoRoot, 'src', dir), path.join(repoRoot, 'dist', dir), {
    recursive: true,
    filter: (src) => !src.endsWith('.ts'),
  })
}
const dashboard = await buildDashboard(repoRoot)
const kB = (bytes) => `${(bytes / 1024).toFixed(1)} kB`
console.log(
  `dashboard: ${path.relative(repoRoot, dashboard.outDir)}, first load ${kB(dashboard.firstLoadGzipBytes)} of gzip JavaScript (budget ${kB(FIRST_LOAD_BUDGET_BYTES)})`,
)
if (dashboard.firstLoadGzipBytes > FIRST_LOAD_BUDGET_BYTES) {
  console.error('dashboard: the first load is over its budget (dashboard/README.md, "Size")')
  process.exit(1)
}
writeFileSync(path.join(repoRoot, 'oclif.manifest.json'), await renderManifest())
