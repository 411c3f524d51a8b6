// npm run build: compile TypeScript to dist/, copy the SQL files next to the compiled modules, and
// regenerate oclif.manifest.json from the compiled commands.
import { execFileSync } from 'node:child_process'
import { cpSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { renderManifest, repoRoot } from './manifest.mjs'

rmSync(path.join(repoRoot, 'dist'), { recursive: true, force: true })
execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
  cwd: repoRoot,
  stdio: 'inherit',
})
for (const dir of ['broker/schema', 'broker/db/queries', 'cli/sql', 'platform/postgres/sql']) {
  cpSync(path.join(repoRoot, 'src', dir), path.join(repoRoot, 'dist', dir), {
    recursive: true,
    filter: (src) => !src.endsWith('.ts'),
  })
}
writeFileSync(path.join(repoRoot, 'oclif.manifest.json'), await renderManifest())
