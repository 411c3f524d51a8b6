// Rewrites comments that cite the specification files a clone does not contain (`operations.md 7.5`,
// `semantics.md sections 8.1 and 8.3`, `reliability.md T2.2`) into citations of this repository's manual:
// `docs/operations.md, "Spool replay"`. scripts/citation-map.json says which heading of docs/ covers each
// cited (file, section); the heading's text is read from the document, so the citation names what a reader
// finds there. test/docs/citations.test.ts keeps every citation pointing at a document and heading that
// exist.
//
//   node scripts/rewrite-citations.mjs            rewrite src/ test/ bench/ scripts/ ARCHITECTURE.md docs/scale.md
//   node scripts/rewrite-citations.mjs --list     print every distinct cited (file, section), mapped or not
//   node scripts/rewrite-citations.mjs --check    exit 1 when a citation has no entry in the map
//   node scripts/rewrite-citations.mjs PATH...    only these files or folders
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { headingsOf } from './doc-headings.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const MAP_FILE = path.join(root, 'scripts/citation-map.json')

/** The specification files, cited by bare name. */
const SPEC = '(?:semantics|http-api|operations|cli|reliability|perf|DESIGN|style)'
/** One section: `7.5`, `10`, a reliability test `T2.2` or hazard `H12`. */
const SECTION = '(?:T\\d+(?:\\.\\d+)?|H\\d+|\\d+(?:\\.\\d+)*)'
/** Sections joined as the comments join them: `7.1, 7.2`, `8.1 and 8.3`, `11.3-11.5`, `2.1 to 2.12`. */
const SECTIONS = `${SECTION}(?:\\s*(?:,|and|to|-|–)\\s*${SECTION})*`
const CITATION = new RegExp(`(?<![\\w/.-])(\`?)(${SPEC})\\.md\\1(?:(?:\\s+sections?)?\\s+(${SECTIONS}))?`, 'g')

const DEFAULT_TARGETS = ['src', 'test', 'bench', 'scripts', 'ARCHITECTURE.md', 'docs/scale.md']
/** This migration's own data and code name the old files on purpose. */
const SKIPPED = new Set(['scripts/rewrite-citations.mjs', 'scripts/citation-map.json'])
const TEXT_FILE = /\.(ts|tsx|mjs|js|sql|md|json)$/
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'results', '.git'])

/** The sections a list names, ranges expanded (`11.3-11.5` is 11.3, 11.4, 11.5). */
export function sectionsOf(list) {
  if (!list) return []
  const tokens = list.split(/\s*(,|and|to|-|–)\s*/)
  const sections = [tokens[0]]
  for (let i = 1; i < tokens.length; i += 2) {
    const separator = tokens[i]
    const next = tokens[i + 1]
    const previous = sections.at(-1)
    if (separator === '-' || separator === '–' || separator === 'to') {
      const from = previous.split('.').map(Number)
      const to = next.split('.').map(Number)
      const sameParent = from.length === to.length && from.slice(0, -1).join('.') === to.slice(0, -1).join('.')
      if (sameParent && !/[TH]/.test(previous + next)) {
        const parent = from.slice(0, -1)
        for (let n = from.at(-1) + 1; n <= to.at(-1); n++) sections.push([...parent, n].join('.'))
        continue
      }
    }
    sections.push(next)
  }
  return sections
}

/** The map key of one cited section: `operations.md 7.5`, or `cli.md` for the file as a whole. */
export const keyOf = (file, section) => (section ? `${file}.md ${section}` : `${file}.md`)

/**
 * Whether a match is a markdown link within docs/ rather than a citation of the specification:
 * `[operations.md, "..."](operations.md#...)`, as the generators of scripts/docs/ write them.
 */
function isManualLink(text, index) {
  return text[index - 1] === '[' || text.slice(index - 2, index) === ']('
}

/** Every citation in `text`: where it is, what it says, and the keys it cites. */
export function citationsIn(text) {
  return [...text.matchAll(CITATION)]
    .filter((match) => !isManualLink(text, match.index))
    .map((match) => {
      const sections = sectionsOf(match[3])
      return {
        index: match.index,
        length: match[0].length,
        text: match[0],
        keys: sections.length === 0 ? [keyOf(match[2])] : sections.map((section) => keyOf(match[2], section)),
      }
    })
}

function loadMap() {
  return JSON.parse(readFileSync(MAP_FILE, 'utf8'))
}

/** More headings of one document than this, and the citation names the document alone. */
const MOST_HEADINGS = 4

const headingCache = new Map()
/** The heading text an entry of the map (`docs/x.md#anchor`) points at; throws when it does not exist. */
function headingOf(target) {
  const [named, anchor] = target.split('#')
  const file = named
  if (!headingCache.has(file)) {
    const full = path.join(root, file)
    if (!existsSync(full)) throw new Error(`${target}: ${file} does not exist`)
    headingCache.set(file, headingsOf(readFileSync(full, 'utf8')))
  }
  if (anchor === undefined) return undefined
  const heading = headingCache.get(file).find((entry) => entry.anchor === anchor)
  if (!heading) throw new Error(`${target}: ${file} has no heading with that anchor`)
  return heading.text
}

/** `"A"`, `"A" and "B"`, `"A", "B" and "C"`. */
function headingList(texts) {
  const quoted = texts.map((text) => `"${text}"`)
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`
}

/**
 * Whether `index` lies inside a double-quoted string literal of its line (an odd number of unescaped `"`
 * before it), where the headings' quotes must be escaped.
 */
function insideDoubleQuotes(text, index) {
  const lineStart = text.lastIndexOf('\n', index - 1) + 1
  const before = text.slice(lineStart, index)
  if (/^\s*(\/\/|\*|\/\*|--)/.test(before)) return false
  return (before.match(/(?<!\\)"/g) ?? []).length % 2 === 1
}

/** The new text of a citation, or the old one when the map cannot rewrite it (reported elsewhere). */
function rewrittenOrSame(citation, map, escaped) {
  try {
    const replacement = rewrittenCitation(citation.keys, map)
    return escaped ? replacement.replace(/"/g, '\\"') : replacement
  } catch {
    return citation.text
  }
}

/** The new citation for the keys of one old one: documents in order of first mention, headings deduplicated. */
export function rewrittenCitation(keys, map) {
  const byDoc = new Map()
  for (const key of keys) {
    const target = map[key]
    if (!target) throw new Error(`no entry for "${key}" in scripts/citation-map.json`)
    const file = target.split('#')[0]
    const heading = headingOf(target)
    if (!byDoc.has(file)) byDoc.set(file, [])
    if (heading !== undefined && !byDoc.get(file).includes(heading)) byDoc.get(file).push(heading)
  }
  return [...byDoc]
    .map(([file, headings]) =>
      headings.length === 0 || headings.length > MOST_HEADINGS ? file : `${file}, ${headingList(headings)}`,
    )
    .join('; ')
}

/** The column comments wrap at (the code's Prettier width). */
const WIDTH = 120
const CODE_FILE = /\.(ts|tsx|mjs|js|sql)$/

/** A comment line: its leading text up to the words (`  // `, ` * `, `-- `, with a bullet's indent) and the words. */
function commentLine(line) {
  const match = /^(\s*(?:\/\/|--|\*)\s)(\s*)(.*)$/.exec(line)
  if (!match || /^\s*\*\//.test(line)) return undefined
  const [, marker, indent, text] = match
  return { first: marker + indent, next: marker + indent + (text.startsWith('- ') ? '  ' : ''), text }
}

function wrapWords(words, first, next) {
  const lines = []
  let current = first
  let empty = true
  for (const word of words) {
    if (!empty && current.length + 1 + word.length > WIDTH) {
      lines.push(current)
      current = next + word
    } else {
      current += (empty ? '' : ' ') + word
    }
    empty = false
  }
  lines.push(current)
  return lines
}

/**
 * Re-wraps the comment paragraphs of code files whose lines a rewrite pushed past the width: the long line
 * and the lines of its paragraph after it. A one-line doc comment becomes a block. Lines of code, tables and
 * fenced examples are left as they are.
 */
export function rewrapComments(text, changedLines) {
  const lines = text.split('\n')
  const out = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (!changedLines.has(i) || line.length <= WIDTH) {
      out.push(line)
      continue
    }
    const block = /^(\s*)\/\*\* (.*) \*\/$/.exec(line)
    if (block) {
      const [, indent, body] = block
      out.push(`${indent}/**`, ...wrapWords(body.split(/\s+/), `${indent} * `, `${indent} * `), `${indent} */`)
      continue
    }
    const head = commentLine(line)
    if (!head || head.text.includes('|') || head.text.startsWith('```')) {
      out.push(line)
      continue
    }
    const words = head.text.split(/\s+/)
    let j = i + 1
    for (; j < lines.length; j++) {
      const more = commentLine(lines[j])
      if (!more || more.first !== head.next || more.text === '' || more.text.startsWith('- ')) break
      if (more.text.includes('|') || more.text.startsWith('```') || /^[@*]/.test(more.text)) break
      words.push(...more.text.split(/\s+/))
    }
    out.push(...wrapWords(words, head.first, head.next))
    i = j - 1
  }
  return out.join('\n')
}

function filesUnder(target) {
  const full = path.join(root, target)
  if (!existsSync(full)) return []
  if (statSync(full).isFile()) return TEXT_FILE.test(full) ? [target] : []
  return readdirSync(full).flatMap((name) => (SKIPPED_DIRS.has(name) ? [] : filesUnder(path.join(target, name))))
}

function main(argv) {
  const mode = argv.find((arg) => arg === '--list' || arg === '--check')
  const targets = argv.filter((arg) => !arg.startsWith('--'))
  const files = (targets.length ? targets : DEFAULT_TARGETS).flatMap(filesUnder).filter((file) => !SKIPPED.has(file))
  const map = loadMap()
  const counts = new Map()
  const planned = []
  const problems = new Set()
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8')
    const citations = citationsIn(text)
    if (citations.length === 0) continue
    for (const citation of citations) {
      for (const key of citation.keys) counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    if (mode) continue
    let next = ''
    let at = 0
    for (const citation of citations) {
      let replacement = citation.text
      try {
        replacement = rewrittenCitation(citation.keys, map)
        if (CODE_FILE.test(file) && insideDoubleQuotes(text, citation.index))
          replacement = replacement.replace(/"/g, '\\"')
      } catch (error) {
        problems.add(`${file}: ${error.message}`)
      }
      next += text.slice(at, citation.index) + replacement
      at = citation.index + citation.length
    }
    next += text.slice(at)
    if (CODE_FILE.test(file)) {
      // The lines that carry a rewritten citation, counted in the new text.
      const changed = new Set()
      let offset = 0
      for (const citation of citations) {
        const replacement = rewrittenOrSame(
          citation,
          map,
          CODE_FILE.test(file) && insideDoubleQuotes(text, citation.index),
        )
        const start = citation.index + offset
        changed.add(next.slice(0, start).split('\n').length - 1)
        offset += replacement.length - citation.length
      }
      next = rewrapComments(next, changed)
    }
    planned.push({ file, text: next, count: citations.length })
  }
  if (problems.size > 0) {
    for (const problem of problems) console.error(problem)
    console.error('nothing rewritten')
    process.exitCode = 1
    return
  }
  for (const { file, text, count } of planned) {
    writeFileSync(path.join(root, file), text)
    console.log(`${file}: ${count}`)
  }
  const rewritten = planned.reduce((sum, entry) => sum + entry.count, 0)
  const unmapped = [...counts.keys()].filter((key) => !map[key]).sort()
  if (mode === '--list') {
    for (const key of [...counts.keys()].sort())
      console.log(`${String(counts.get(key)).padStart(4)}  ${key}  ${map[key] ?? '(unmapped)'}`)
  }
  if (mode === '--check' && unmapped.length) {
    console.error(`unmapped: ${unmapped.join(', ')}`)
    process.exitCode = 1
  }
  if (!mode) console.log(`rewrote ${rewritten} citation(s) in ${files.length} file(s) searched`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2))
