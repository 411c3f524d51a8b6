/**
 * Times and seek targets of docs/cli.md, "Times and seek targets", shared by `--from`, `--to`, `--since` and seek
 * `--to`: `now`, `beginning`, `<N><unit>[<N><unit>...] ago` or bare (ago), Unix seconds, RFC 3339 and the three UTC
 * calendar forms. Everything leaves the CLI as RFC 3339 UTC.
 */
import { EXIT, UserError } from './errors.js'

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
}

const BEGINNING = new Set(['beginning', 'start', 'earliest'])
const END = new Set(['end', 'latest'])

function badTime(text: string, flag: string | undefined): UserError {
  return new UserError(`${flag ? `${flag}: ` : ''}${JSON.stringify(text)} is not a time`, {
    exitCode: EXIT.user,
    hint: 'use now, beginning, 15m (ago), "2h ago", Unix seconds, 2026-01-31, 2026-01-31T12:00:00 or RFC 3339',
  })
}

/**
 * The instant a time expression names, in ms since the epoch. `beginning` is the epoch, which the broker
 * treats as the true beginning. Throws a UserError naming `flag` for anything else.
 */
export function parseTimeMs(text: string, options: { flag?: string; now?: number } = {}): number {
  const now = options.now ?? Date.now()
  const trimmed = text.trim().toLowerCase()
  if (trimmed === 'now') return now
  if (BEGINNING.has(trimmed)) return 0
  // One or more <N><unit> (`15m`, `1h30m ago`, as the Go queenctl takes them), meaning ago.
  const relative = /^((?:\d+(?:\.\d+)?\s*(?:ms|s|m|h|d|w))+)(?:\s+ago)?$/.exec(trimmed)
  if (relative) {
    const parts = [...relative[1]!.matchAll(/(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/g)]
    return Math.round(now - parts.reduce((sum, part) => sum + Number(part[1]) * UNIT_MS[part[2]!]!, 0))
  }
  if (/^\d{1,12}$/.test(trimmed)) return Number(trimmed) * 1000
  const calendar = /^(\d{4}-\d{2}-\d{2})(?:[t ](\d{2}:\d{2}:\d{2}(?:\.\d+)?))?$/.exec(trimmed)
  const iso = calendar ? `${calendar[1]}T${calendar[2] ?? '00:00:00'}Z` : text.trim()
  // RFC 3339 needs a zone; Date.parse would read a zone-less form as local time.
  if (!calendar && !/(z|[+-]\d{2}:?\d{2})$/i.test(iso)) throw badTime(text, options.flag)
  if (!/^\d{4}-\d{2}-\d{2}t\d{2}:\d{2}/i.test(iso)) throw badTime(text, options.flag)
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) throw badTime(text, options.flag)
  return ms
}

/** A time expression as the RFC 3339 UTC text sent to the broker. */
export function parseTime(text: string, options: { flag?: string; now?: number } = {}): string {
  return new Date(parseTimeMs(text, options)).toISOString()
}

/** The body of a seek: `{toEnd:true}` for now/end/latest, else `{timestamp}` (beginning = the epoch). */
export type SeekTarget = { toEnd: true } | { timestamp: string }

/** Parses a seek `--to` (docs/cli.md, "Times and seek targets"). */
export function parseSeekTarget(text: string, options: { flag?: string; now?: number } = {}): SeekTarget {
  const trimmed = text.trim().toLowerCase()
  if (trimmed === 'now' || END.has(trimmed)) return { toEnd: true }
  return { timestamp: parseTime(text, options) }
}
