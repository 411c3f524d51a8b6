import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
// @ts-expect-error plain ESM script without type declarations
import { renderManifest, repoRoot } from '../scripts/manifest.mjs'

describe('oclif.manifest.json', () => {
  it('matches the commands of the current build', async () => {
    const committed = readFileSync(`${repoRoot as string}/oclif.manifest.json`, 'utf8').split('\n')
    const fresh = ((await renderManifest()) as string).split('\n')
    const firstDifference = fresh.findIndex((line, index) => line !== committed[index])
    const where =
      firstDifference < 0
        ? ''
        : `line ${firstDifference + 1}: committed ${JSON.stringify(committed[firstDifference])}, built ${JSON.stringify(fresh[firstDifference])}`
    expect(where, 'run npm run build and commit oclif.manifest.json').toBe('')
    expect(fresh.length).toBe(committed.length)
  })
})
