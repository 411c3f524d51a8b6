/**
 * `npm run docs`: regenerates the generated documents of docs/ (the configuration reference from the
 * variable table, the command reference from oclif.manifest.json). `--check` writes nothing and exits 1
 * naming the files that are out of date. Run `npm run build` first when commands changed: the command
 * reference reads the committed manifest.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { CLI_DOC, renderCliDoc, type Manifest, type Topics } from './cli.js'
import { CONFIGURATION_DOC, renderConfigurationDoc } from './configuration.js'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** The command `npm run docs` runs, for messages that ask for a regeneration. */
export const REGENERATE = 'npm run docs'

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8')
/** A generated document's committed text; empty before its first generation. */
const committed = (file: string) => (existsSync(path.join(repoRoot, file)) ? read(file) : '')

/** Every generated document: its path, its committed text, and the text the generators produce now. */
export function generatedDocuments(): { file: string; committed: string; fresh: string }[] {
  const manifest = JSON.parse(read('oclif.manifest.json')) as Manifest
  const topics = (JSON.parse(read('package.json')) as { oclif: { topics: Topics } }).oclif.topics
  const cli = read(CLI_DOC)
  return [
    { file: CONFIGURATION_DOC, committed: committed(CONFIGURATION_DOC), fresh: renderConfigurationDoc() },
    { file: CLI_DOC, committed: cli, fresh: renderCliDoc(cli, manifest, topics) },
  ]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check')
  const stale = generatedDocuments().filter((doc) => doc.fresh !== doc.committed)
  for (const doc of stale) {
    if (check) console.error(`${doc.file} is out of date: run ${REGENERATE}`)
    else writeFileSync(path.join(repoRoot, doc.file), doc.fresh)
  }
  if (!check) console.log(stale.length ? `wrote ${stale.map((doc) => doc.file).join(', ')}` : 'docs up to date')
  process.exitCode = check && stale.length ? 1 : 0
}
