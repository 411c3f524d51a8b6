import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
// @ts-expect-error plain ESM script without type declarations
import { renderManifest, repoRoot } from '../scripts/manifest.mjs'

describe('oclif.manifest.json', () => {
  it('matches the commands of the current build', async () => {
    const committed = readFileSync(`${repoRoot as string}/oclif.manifest.json`, 'utf8')
    const fresh = (await renderManifest()) as string
    expect(fresh === committed, 'run npm run build and commit oclif.manifest.json').toBe(true)
  })
})
