/**
 * JSON text passed through untouched. Popped payloads arrive from PostgreSQL as JSON text; parsing them
 * only to serialise them again costs a few microseconds per message on the hottest path (drain, fan-out),
 * so they travel as RawJson and are spliced into the answer as they are.
 */

let collecting: RawJson[] | undefined

/** A JSON value held as its text. */
export class RawJson {
  readonly json: string

  constructor(json: string) {
    this.json = json
  }

  /** Inside {@link stringifyWithRaw}: a placeholder that is replaced by the text afterwards. */
  toJSON(): unknown {
    if (!collecting) return JSON.parse(this.json) as unknown
    collecting.push(this)
    return `\u0000raw:${collecting.length - 1}`
  }
}

const PLACEHOLDER = /"\\u0000raw:(\d+)"/g

/** JSON.stringify that writes RawJson values verbatim. */
export function stringifyWithRaw(value: unknown): string {
  const raws: RawJson[] = []
  collecting = raws
  let text: string
  try {
    text = JSON.stringify(value)
  } finally {
    collecting = undefined
  }
  if (raws.length === 0) return text
  // Placeholders cannot collide with real data: strings reaching here never contain U+0000 (refused at
  // the edge), and a literal backslash in data is itself escaped to "\\\\".
  return text.replace(PLACEHOLDER, (_match, index: string) => raws[Number(index)]!.json)
}
