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

/** `--log-level` values, as the oclif command lists them. */
const LOG_LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error'])

/** The flags, or undefined when the oclif command must read them (see the module comment). */
export function parseServeFlags(argv: readonly string[]): ServeFlags | undefined {
  let values: Record<string, string | boolean | undefined>
  try {
    const parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'log-level': { type: 'string' },
        'env-file': { type: 'string' },
        'data-dir': { type: 'string' },
      },
    })
    values = parsed.values
  } catch {
    return undefined
  }
  const port = values.port
  if (typeof port === 'string' && !(/^\d{1,5}$/.test(port) && Number(port) <= 65535)) return undefined
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
