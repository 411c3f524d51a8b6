/**
 * The broker's logger (docs/operations.md, "Logs"): pino, as text lines (`<time> <LEVEL> <message>
 * key=value ...`) by default or one JSON object per line with QUEEN_LOG_JSON=true. Every line carries the
 * server id; secrets and Authorization headers are redacted.
 */
import { Writable } from 'node:stream'
import pino, { type Logger } from 'pino'

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  level: string
  json: boolean
  serverId: string
  /** Where lines go (stdout by default). */
  destination?: NodeJS.WritableStream
}

const RESERVED = new Set(['level', 'time', 'msg', 'pid', 'hostname'])

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (typeof value === 'string') return /[\s="]/.test(value) || value === '' ? JSON.stringify(value) : value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value === 'object' && 'message' in value && typeof value.message === 'string') {
    return JSON.stringify(value.message)
  }
  return JSON.stringify(value)
}

/** Formats one pino JSON line as a text line. */
export function formatTextLine(line: string): string {
  let record: Record<string, unknown>
  try {
    record = JSON.parse(line) as Record<string, unknown>
  } catch {
    return line
  }
  const fields = Object.entries(record)
    .filter(([key]) => !RESERVED.has(key))
    .map(([key, value]) => `${key}=${formatValue(value)}`)
  const text = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback)
  const level = text(record.level, 'info').toUpperCase()
  return [text(record.time, new Date().toISOString()), level, text(record.msg, ''), ...fields].join(' ')
}

function textStream(destination: NodeJS.WritableStream): Writable {
  let pending = ''
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      pending += chunk.toString('utf8')
      let newline = pending.indexOf('\n')
      let out = ''
      while (newline >= 0) {
        out += `${formatTextLine(pending.slice(0, newline))}\n`
        pending = pending.slice(newline + 1)
        newline = pending.indexOf('\n')
      }
      if (out) destination.write(out)
      callback()
    },
  })
}

/** Creates the root logger; components log through `logger.child({ component })`. */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? process.stdout
  return pino(
    {
      level: options.level,
      // JSON lines carry the server id on every line; text lines stay short and name it where it matters.
      base: options.json ? { server_id: options.serverId } : {},
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'password', 'secret', 'token', '*.password'],
        censor: '<redacted>',
      },
    },
    options.json ? destination : textStream(destination),
  )
}
