/**
 * `spool replay` (docs/cli.md): checks the directory and the target database, then replays the spool of a
 * stopped broker with the broker's own offline replay (src/broker/offline-replay.ts). A directory a running
 * broker owns is refused: that broker replays it itself.
 */
import { constants } from 'node:fs'
import { access } from 'node:fs/promises'
import pg from 'pg'
import pino, { type Logger } from 'pino'
import type { BrokerConfig } from '../broker/config/broker-config.js'
import { replaySpoolOffline, SpoolNotWritableError } from '../broker/offline-replay.js'
import { RECORD_OVERHEAD_BYTES } from '../broker/spool/record-format.js'
import { inspectSpool, type PartitionSummary, type SpoolInspection } from '../broker/spool/spool-inspect.js'
import { SpoolLockedError } from '../broker/spool/spool-directory.js'
import { EXIT, UserError } from './errors.js'
import { readMaintenanceDirect } from './maintenance.js'
import { readSchemaStatus } from './schema-status.js'

/** What a replay did. */
export interface ReplayResult {
  dir: string
  replayed: number
  quarantined: number
  /** Damaged byte ranges and torn tails moved to failed/. */
  damaged: number
  /** Records still awaiting replay afterwards (0 unless PostgreSQL went away mid-way). */
  remaining: number
  partitions: PartitionSummary[]
}

/** Reads the directory without changing it: what a replay would take. */
export async function planReplay(dir: string, config: BrokerConfig): Promise<SpoolInspection> {
  if (
    !(await access(dir, constants.R_OK).then(
      () => true,
      () => false,
    ))
  ) {
    throw new UserError(`spool directory ${dir} does not exist or is not readable`, {
      hint: "pass --dir (or FILE_BUFFER_DIR) naming the broker's spool, and run as the broker's user",
    })
  }
  const inspection = await inspectSpool({ dir, maxRecordBytes: config.maxBodyBytes + RECORD_OVERHEAD_BYTES })
  const owner = inspection.owner
  if (owner?.running) {
    throw new UserError(
      `spool ${dir} belongs to a running broker (${owner.serverId ?? 'unknown'}, pid ${owner.pid ?? '?'}); it replays its spool itself`,
      {
        hint: 'stop that broker first, or let it replay: it does once PostgreSQL is reachable and push-maintenance is off',
      },
    )
  }
  return inspection
}

/** Refuses a database the broker itself would not replay into: schema not current, or push-maintenance on. */
export async function checkReplayTarget(connection: pg.ClientConfig): Promise<void> {
  const schema = await readSchemaStatus(connection)
  if (schema.state !== 'current') {
    throw new UserError(`the schema of this database is ${schema.state}; replay needs the schema of this CLI`, {
      hint:
        schema.state === 'ahead'
          ? 'use the queenctl of the version that set up the database'
          : 'run queenctl schema apply first',
    })
  }
  const flags = await readMaintenanceDirect(connection)
  if (flags.push) {
    throw new UserError('push-maintenance is on: replay would write while pushes are held back', {
      hint: 'turn it off first (queenctl maintenance off, or --direct), or leave the spool to the brokers',
    })
  }
}

/** Log lines of the broker's modules as short stderr lines: warnings and errors always, info with --debug. */
function stderrLogger(debug: boolean): Logger {
  return pino(
    { level: debug ? 'info' : 'warn', base: undefined, timestamp: false },
    {
      write(line: string) {
        const entry = JSON.parse(line) as { level: number; msg: string; [key: string]: unknown }
        const label = entry.level >= 50 ? 'error' : entry.level >= 40 ? 'warning' : 'info'
        const details = Object.entries(entry)
          .filter(([key]) => !['level', 'msg', 'component', 'err'].includes(key))
          .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
        process.stderr.write(`${label}: ${entry.msg}${details.length > 0 ? ` (${details.join(' ')})` : ''}\n`)
      },
    },
  )
}

/** Replays everything the directory holds. Throws a UserError when a live broker owns it. */
export async function replaySpool(options: {
  dir: string
  config: BrokerConfig
  connection: pg.ClientConfig
  plan: SpoolInspection
  debug: boolean
}): Promise<ReplayResult> {
  const { config, dir } = options
  const pool = new pg.Pool({ ...options.connection, max: 2, application_name: 'queenctl spool replay' })
  pool.on('error', () => undefined)
  try {
    const result = await replaySpoolOffline({ dir, pool, config, log: stderrLogger(options.debug) }).catch(
      (error: unknown) => {
        if (error instanceof SpoolLockedError) {
          throw new UserError(error.message, { hint: 'stop that broker first; it replays its own spool' })
        }
        if (error instanceof SpoolNotWritableError) {
          throw new UserError(`${error.message}; replay must delete what it replayed`, {
            hint: "run as the broker's user (the directory is mode 0700)",
          })
        }
        throw error
      },
    )
    if (result.remaining > 0) {
      throw new UserError(`replay stopped with ${result.remaining} record(s) left: PostgreSQL became unavailable`, {
        exitCode: EXIT.server,
        hint: 'run queenctl spool replay again once PostgreSQL is reachable; replayed records are not stored twice',
      })
    }
    return { dir, ...result, partitions: options.plan.partitions }
  } finally {
    await pool.end().catch(() => undefined)
  }
}
