/**
 * The global flags of docs/cli.md, "Global flags", each with its QUEEN_* environment twin where one exists, and the
 * shared flags of several commands (`--yes`, `--pg-url`). Commands take their flags from here so names,
 * descriptions and defaults stay the same everywhere.
 */
import { Flags } from '@oclif/core'
import { EXIT, UserError } from './errors.js'

const GLOBAL = 'GLOBAL'

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/**
 * Parses a duration: `30s`, `1500ms`, `2m`, `1h30m`, `1.5s`; a bare number is seconds. Throws a
 * UserError for anything else (oclif prefixes the flag's name).
 */
export function parseDurationMs(text: string): number {
  const trimmed = text.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)]
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== trimmed) {
    throw new UserError(`${text} is not a duration`, { exitCode: EXIT.user, hint: 'use e.g. 30s, 1500ms, 2m' })
  }
  return Math.round(parts.reduce((sum, part) => sum + Number(part[1]) * DURATION_UNITS_MS[part[2]!]!, 0))
}

/** A duration flag whose value is milliseconds. */
const duration = Flags.custom<number>({
  parse: (input) => Promise.resolve(parseDurationMs(input)),
})

/** Output flags: every command that prints data. */
export const outputFlags = {
  json: Flags.boolean({
    description: 'same as --output json',
    helpGroup: GLOBAL,
  }),
  output: Flags.string({
    char: 'o',
    description:
      'output format: table, wide, json, yaml, ndjson (alias jsonl), jsonpath=EXPR; default table on a terminal, json when piped',
    helpGroup: GLOBAL,
  }),
  color: Flags.boolean({
    description: 'force colour on (--color) or off (--no-color); default: NO_COLOR, CLICOLOR, then the terminal',
    allowNo: true,
    helpGroup: GLOBAL,
  }),
  quiet: Flags.boolean({
    char: 'q',
    description: 'suppress confirmations on stderr',
    default: false,
    helpGroup: GLOBAL,
  }),
  'no-headers': Flags.boolean({
    description: 'omit the table header row',
    default: false,
    helpGroup: GLOBAL,
  }),
}

/** Connection flags: every command that talks to a broker over HTTP. */
export const connectionFlags = {
  context: Flags.string({
    description: 'context of the contexts file to use (default: its current-context)',
    env: 'QUEEN_CONTEXT',
    helpGroup: GLOBAL,
  }),
  server: Flags.string({
    description: 'broker base URL, without /api/v1 (default: the context, else http://localhost:6632)',
    env: 'QUEEN_SERVER',
    helpGroup: GLOBAL,
  }),
  token: Flags.string({
    description: 'bearer token (default: the context token-ref)',
    env: 'QUEEN_TOKEN',
    helpGroup: GLOBAL,
  }),
  tenant: Flags.string({
    description: 'tenant sent in the tenancy header (default: the context)',
    env: 'QUEEN_TENANT',
    helpGroup: GLOBAL,
  }),
  config: Flags.string({
    description: 'contexts file (default: ~/.queen/config.yaml)',
    env: 'QUEEN_CONFIG',
    helpGroup: GLOBAL,
  }),
  insecure: Flags.boolean({
    description: 'skip TLS certificate verification of an https:// broker',
    allowNo: true,
    helpGroup: GLOBAL,
  }),
  timeout: duration({
    description: 'per-request HTTP timeout, e.g. 30s or 1500ms',
    default: 30_000,
    defaultHelp: () => Promise.resolve('30s'),
    helpGroup: GLOBAL,
  }),
}

/** `--yes` of destructive verbs (docs/cli.md, "Destructive verbs"). */
export const yesFlag = Flags.boolean({
  description: 'do it without asking (required when stdin is not a terminal)',
  default: false,
})

/** `--dry-run` of destructive verbs: show what would change, change nothing. */
export const dryRunFlag = Flags.boolean({
  description: 'show what would change and change nothing (exit 4 when nothing would change)',
  default: false,
})

/** `--pg-url` of PostgreSQL-direct commands. */
export const pgUrlFlag = Flags.string({
  description: 'PostgreSQL URL (default: PG_* variables, the context database, then the embedded server)',
})

/** `--direct` of commands that can bypass the broker and work on PostgreSQL (docs/cli.md, "queenctl maintenance"). */
export const directFlag = Flags.boolean({
  description: 'work on PostgreSQL directly (--pg-url, PG_*, the context database) instead of through a broker',
  default: false,
})
