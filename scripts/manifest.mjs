// Builds oclif.manifest.json the way `oclif manifest` does, as a function the freshness test can call.
import { Plugin } from '@oclif/core'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The manifest text for the compiled commands under dist/commands. */
export async function renderManifest(root = repoRoot) {
  const plugin = new Plugin({
    errorOnManifestCreate: true,
    ignoreManifest: true,
    respectNoCacheDefault: true,
    root,
    type: 'core',
  })
  await plugin.load()
  // Commands in id order: oclif lists them in the order the file system returns them, which differs between
  // checkouts, and the committed file must be the same wherever it is built.
  const commands = Object.entries(plugin.manifest.commands).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return JSON.stringify({ ...plugin.manifest, commands: Object.fromEntries(commands) }, null, 2) + '\n'
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(path.join(repoRoot, 'oclif.manifest.json'), await renderManifest())
}
