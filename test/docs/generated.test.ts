/**
 * The generated documents are current (docs/conventions.md, "Generated documents"): docs/configuration.md
 * from the broker's variable table and the command reference of docs/cli.md from oclif.manifest.json, each
 * rendered again and compared with the committed file.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { VARIABLES } from '../../src/broker/config/variables.js'
import { BEGIN_MARKER, END_MARKER, renderCliDoc, type Manifest } from '../../scripts/docs/cli.js'
import { generatedDocuments, REGENERATE } from '../../scripts/docs/index.js'

/** The first line where two texts differ, for a failure message a person can act on. */
function firstDifference(committed: string, fresh: string): string {
  const a = committed.split('\n')
  const b = fresh.split('\n')
  const line = b.findIndex((text, index) => text !== a[index])
  if (line < 0) return a.length === b.length ? '' : `the committed file has ${a.length - b.length} extra line(s)`
  return `line ${line + 1}: committed ${JSON.stringify(a[line] ?? '(end of file)')}, generated ${JSON.stringify(b[line])}`
}

const manifest = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as Manifest
const committed = (file: string) => generatedDocuments().find((doc) => doc.file === file)!.committed

describe('generated documents', () => {
  for (const doc of generatedDocuments()) {
    it(`${doc.file} matches what ${REGENERATE} produces now`, () => {
      expect(firstDifference(doc.committed, doc.fresh), `run ${REGENERATE} and commit ${doc.file}`).toBe('')
    })
  }

  it('lists every broker variable in docs/configuration.md', () => {
    const text = committed('docs/configuration.md')
    expect(VARIABLES.filter((spec) => !text.includes(`| \`${spec.name}\``)).map((spec) => spec.name)).toEqual([])
  })

  it('gives every command of the manifest a section in docs/cli.md', () => {
    const text = committed('docs/cli.md')
    const missing = Object.keys(manifest.commands).filter(
      (id) => !text.includes(`\n### queenctl ${id.split(':').join(' ')}\n`),
    )
    expect(missing).toEqual([])
  })

  it('keeps the hand-written text of docs/cli.md and replaces only the generated part', () => {
    const handWritten = 'hand-written text that no generator knows'
    const rendered = renderCliDoc(`# CLI\n\n${handWritten}\n\n${BEGIN_MARKER}\nstale\n${END_MARKER}\n`, manifest, {})
    expect(rendered).toContain(handWritten)
    expect(rendered).not.toContain('\nstale\n')
    expect(rendered).toContain('\n### queenctl serve\n')
  })

  it('refuses a docs/cli.md without the markers rather than overwrite it', () => {
    expect(() => renderCliDoc('# CLI\n', manifest, {})).toThrow(BEGIN_MARKER)
  })
})
