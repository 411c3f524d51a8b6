/**
 * The `serve` flags read without oclif (server.ts, serveFromArgv): the forms the oclif command
 * (src/commands/serve.ts) accepts, and nothing else. Anything this does not read exactly as that command would
 * answers undefined, so the command itself runs and reports it.
 */
import { parseArgs } from 'node:util'
import type { ConfigFlags } from './resolve.js'

/** The serve flags bin/run.js can act on. */
export interface ServeFlags extends ConfigFlags {
  /** `--env-file`: read before defaults, never over the environment. */
  readonly envFile?: string
}

/** `--log-level` values; the oclif command offers the same list. */
export const SERVE_LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const

/** The highest `--port`. */
export const SERVE_MAX_PORT = 65535

/**
 * The value flags both readers take, with their help text: one table, so the two cannot drift apart. The oclif
 * command adds `--print-config`, which never starts a broker.
 */
export const SERVE_VALUE_FLAGS = {
  port: 'HTTP port (overrides PORT)',
  host: 'bind address (overrides HOST)',
  'log-level': 'log level (overrides LOG_LEVEL)',
  'env-file': 'KEY=VALUE file read before defaults; never overrides the environment',
  'data-dir': 'embedded PostgreSQL data directory (overrides QUEEN_DATA_DIR)',
} as const

const LOG_LEVELS: ReadonlySet<string> = new Set(SERVE_LOG_LEVELS)

/** The flags, or undefined when the oclif command must read them (see the module comment). */
export function parseServeFlags(argv: readonly string[]): ServeFlags | undefined {
  let values: Record<string, string | boolean | undefined>
  try {
    const parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(Object.keys(SERVE_VALUE_FLAGS).map((name) => [name, { type: 'string' as const }])),
    })
    values = parsed.values
  } catch {
    return undefined
  }
  const port = values.port
  if (typeof port === 'string' && !(/^\d{1,5}$/.test(port) && Number(port) <= SERVE_MAX_PORT)) return undefined
  const logLevel = values['log-level']
  if (typeof logLevel === 'string' && !LOG_LEVELS.has(logLevel)) return undefined
  const text = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined)
  return {
    port: typeof port === 'string' ? Number(port) : undefined,
    host: text(values.host),
    logLevel: text(logLevel),
    dataDir: text(values['data-dir']),
    envFile: text(values['env-file']),
  }
}
