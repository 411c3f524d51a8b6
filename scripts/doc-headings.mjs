// The headings of a markdown document and their anchors, as GitHub renders them: shared by the citation
// rewrite (scripts/rewrite-citations.mjs) and the test that every cited heading exists
// (test/docs/citations.test.ts).

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(text) {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/**
 * Every heading of `markdown` outside fenced code, in order: its text (inline code marks removed) and its
 * anchor, numbered `-1`, `-2`, ... when a text repeats, as GitHub does.
 */
export function headingsOf(markdown) {
  const headings = []
  const seen = new Map()
  let fence = null
  for (const line of markdown.split('\n')) {
    const opening = /^\s*(```+|~~~+)/.exec(line)
    if (opening) {
      if (fence === null) fence = opening[1][0]
      else if (opening[1][0] === fence) fence = null
      continue
    }
    if (fence !== null) continue
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const text = heading[1].replace(/`/g, '')
    const base = slug(text)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    headings.push({ text, anchor: count === 0 ? base : `${base}-${count}` })
  }
  return headings
}
