/**
 * Comments and documents cite only what a clone contains (docs/conventions.md, "Comments and documents"):
 * every markdown document that a file in src/, test/, bench/, scripts/, docs/, deploy/, bin/, .ci/, the
 * top-level documents or the build and lint files names exists, every anchor after it exists in it, and every heading quoted after it (the form
 * `docs/operations.md, "Spool replay"`) is one of its headings.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error plain ESM script without type declarations
import { headingsOf } from '../../scripts/doc-headings.mjs'

const root = path.resolve(import.meta.dirname, '../..')
const SCANNED = [
  'src',
  'test',
  'bench',
  'scripts',
  'docs',
  'deploy',
  'bin',
  '.ci',
  'dashboard/src',
  'README.md',
  'ARCHITECTURE.md',
  'Dockerfile',
  'eslint.config.js',
  '.dependency-cruiser.cjs',
]
/** The citation migration's own tool and data name the old specification files on purpose. */
const NOT_SCANNED = new Set(['scripts/rewrite-citations.mjs', 'scripts/citation-map.json'])
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'results'])
/** Files the code writes (the bench's report), named in code but not documents of the repository. */
const WRITTEN_BY_CODE = new Set(['report.md'])
const TEXT = /(\.(ts|tsx|mjs|cjs|js|sql|md|ya?ml|tpl|sh)|^Dockerfile|\/run)$/
/** A document name, optionally with an anchor, and optionally followed by the headings it cites. */
const CITATION =
  /(?<![\w/.-])((?:\.\.?\/)*(?:[\w.-]+\/)*[\w-][\w.-]*\.md)(?:#([\w-]+))?(?![\w-])(, "[^"\n]+"(?:, "[^"\n]+")*(?: and "[^"\n]+")?)?/g

function filesUnder(relative: string): string[] {
  const full = path.join(root, relative)
  if (!existsSync(full)) return []
  if (statSync(full).isFile()) return TEXT.test(relative) && !NOT_SCANNED.has(relative) ? [relative] : []
  return readdirSync(full).flatMap((name) => (SKIPPED_DIRS.has(name) ? [] : filesUnder(path.join(relative, name))))
}

/**
 * Where a cited name points: next to the citing file, or from the repository root. Text under
 * scripts/docs/ is written into docs/, so its links are read from there.
 */
function resolve(citing: string, cited: string): string | undefined {
  const bases = [path.dirname(citing), '.', ...(citing.startsWith('scripts/docs/') ? ['docs'] : [])]
  const candidates = bases.map((base) => path.normalize(path.join(base, cited)))
  return candidates.find((candidate) => existsSync(path.join(root, candidate)))
}

const headingCache = new Map<string, { text: string; anchor: string }[]>()
function headings(file: string): { text: string; anchor: string }[] {
  if (!headingCache.has(file)) {
    headingCache.set(
      file,
      headingsOf(readFileSync(path.join(root, file), 'utf8')) as { text: string; anchor: string }[],
    )
  }
  return headingCache.get(file)!
}

/**
 * The text with wrapped lines joined, so a citation whose quoted heading a comment or a paragraph wraps onto a
 * second line is read whole; `lineOf` maps an index back to its line.
 */
function joined(file: string, text: string): { text: string; lineOf: (index: number) => number } {
  // A line break followed by a comment marker in code, or a single line break in markdown.
  const wrap = file.endsWith('.md') ? /(?<!\n)\n(?!\n)[ \t]*/g : /\n[ \t]*(?:\/\/|--|\*(?!\/))[ \t]?/g
  const joins: number[] = []
  let removed = 0
  const out = text.replace(wrap, (gap: string, offset: number) => {
    joins.push(offset - removed)
    removed += gap.length - 1
    return ' '
  })
  return {
    text: out,
    lineOf: (index) => out.slice(0, index).split('\n').length + joins.filter((position) => position < index).length,
  }
}

/** Every citation problem of one file, as `file:line: what is wrong`. */
function problemsOf(file: string): string[] {
  const { text, lineOf } = joined(file, readFileSync(path.join(root, file), 'utf8'))
  const problems: string[] = []
  for (const match of text.matchAll(CITATION)) {
    const [, cited, anchor, headingList] = match
    if (WRITTEN_BY_CODE.has(path.basename(cited!))) continue
    const line = lineOf(match.index)
    const where = `${file}:${line}`
    const target = resolve(file, cited!)
    if (target === undefined) {
      problems.push(`${where}: cites ${cited}, which the repository does not contain`)
      continue
    }
    const source = target
    if (anchor !== undefined && !headings(source).some((heading) => heading.anchor === anchor)) {
      problems.push(`${where}: ${target} has no heading with the anchor #${anchor}`)
    }
    for (const [, heading] of (headingList ?? '').matchAll(/"([^"\n]+)"/g)) {
      if (!headings(source).some((entry) => entry.text === heading)) {
        problems.push(`${where}: ${target} has no heading "${heading}"`)
      }
    }
  }
  return problems
}

describe('citations', () => {
  it('name only documents and headings the repository contains', () => {
    const problems = SCANNED.flatMap(filesUnder).flatMap(problemsOf)
    expect(
      problems,
      'cite a document of this repository and one of its headings, e.g. docs/operations.md, "Spool replay"; ' +
        'node scripts/rewrite-citations.mjs rewrites citations of the specification files through scripts/citation-map.json',
    ).toEqual([])
  })

  it('finds a citation of a missing document, a missing heading and a missing anchor', () => {
    const sample = (body: string) => {
      const text = `// ${body}\n`
      return [...text.matchAll(CITATION)].map((match) => match[0])
    }
    // Built from parts, so this file does not cite them itself.
    const bare = ['operations', 'md'].join('.')
    expect(sample(`as ${bare} 7.5 says`)).toEqual([bare])
    expect(sample(`see docs/${bare}, "Spool replay" and "Disk full"`)).toEqual([
      `docs/${bare}, "Spool replay" and "Disk full"`,
    ])
    expect(resolve('src/broker/spool/spool.ts', bare)).toBeUndefined()
    expect(resolve('src/broker/spool/spool.ts', 'docs/operations.md')).toBe('docs/operations.md')
    expect(headings('docs/operations.md').some((heading) => heading.text === 'Spool replay')).toBe(true)
    expect(headings('docs/operations.md').some((heading) => heading.text === 'Spool rewind')).toBe(false)
  })
})
