// The dashboard's build (dashboard/README.md): Vite bundles dashboard/ into dist/dashboard/ (hashed names under
// assets/), every asset and index.html gets precompressed .gz and .br siblings the broker serves by
// Accept-Encoding, and the JavaScript of the first load is measured gzip-compressed and held to its budget.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { build } from 'vite'

/** The first load's JavaScript, gzip-compressed, at most (issue 35; dashboard/README.md, "Size"). */
export const FIRST_LOAD_BUDGET_BYTES = 250 * 1024

/** Builds the dashboard of the repository at `repoRoot` into dist/dashboard; resolves to the measured sizes. */
export async function buildDashboard(repoRoot) {
  const outDir = path.join(repoRoot, 'dist', 'dashboard')
  await build({
    configFile: false,
    root: path.join(repoRoot, 'dashboard'),
    base: '/',
    logLevel: 'warn',
    // JSX with React's automatic runtime; no React plugin: the broker serves a build, never a dev server.
    oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
    build: {
      outDir,
      emptyOutDir: true,
      assetsDir: 'assets',
      // Every asset a file (no data: URLs), so the Content-Security-Policy can stay 'self'.
      assetsInlineLimit: 0,
      target: 'es2022',
      sourcemap: false,
      reportCompressedSize: false,
    },
  })
  for (const file of filesUnder(outDir)) {
    const body = readFileSync(file)
    writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }))
    writeFileSync(
      `${file}.br`,
      brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      }),
    )
  }
  const html = readFileSync(path.join(outDir, 'index.html'), 'utf8')
  const scripts = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1])
  const firstLoadGzipBytes = scripts.reduce((sum, file) => sum + statSync(path.join(outDir, `${file}.gz`)).size, 0)
  return { outDir, scripts, firstLoadGzipBytes }
}

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !/\.(gz|br)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
}
