/**
 * `spool replay` (docs/cli.md, "Command reference", docs/operations.md, "Spool replay"): replays the spool of a stopped
 * broker into PostgreSQL with the broker's own modules — Spool.open (the directory lock and the boot recovery of an
 * unfinished segment), SpoolReplayer (oldest segment first, batches of FILE_BUFFER_MAX_BATCH, progress fsynced, poison
 * records quarantined, a segment deleted only when every record is settled) and the push engine's replay statement
 * (original transaction ids and acceptance times, so a repeat stores nothing twice). A directory a running broker owns
 * is refused: that broker replays it itself.
 */
import { constants } from 'node:fs'
import { access } from 'node:fs/promises'
import pg from 'pg'
import pino, { type Logger } from 'pino'
import type { BrokerConfig } from '../broker/config/broker-config.js'
import { PayloadCipher } from '../broker/crypto/payload-cipher.js'
import { PushEncryption } from '../broker/engine/push-encryption.js'
import { PushEngine } from '../broker/engine/push-engine.js'
import { QueueRegistry } from '../broker/engine/queue-registry.js'
import { BrokerEvents } from '../broker/observe/broker-events.js'
import { inspectSpool, type PartitionSummary, type SpoolInspection } from '../broker/spool/spool-inspect.js'
import { SpoolReplayer } from '../broker/spool/spool-replayer.js'
import { SpoolLockedError } from '../broker/spool/spool-directory.js'
import { Spool } from '../broker/spool/spool.js'
import { EXIT, UserError } from './errors.js'
import { readMaintenanceDirect } from './maintenance.js'
import { readSchemaStatus } from './schema-status.js'

/**
 * QUEEN_MAX_BODY_BYTES + 64 KiB: the record bound the broker's reader uses (docs/operations.md, "Spool record format").
 */
export const RECORD_OVERHEAD_BYTES = 64 * 1024

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
  const log = stderrLogger(options.debug)
  let spool: Spool
  try {
    spool = await Spool.open(
      {
        dir,
        serverId: 'queenctl-spool-replay',
        eventsPerFile: config.spool.eventsPerFile,
        flushMs: config.spool.flushMs,
        maxBytes: 0,
        maxRecordBytes: config.maxBodyBytes + RECORD_OVERHEAD_BYTES,
      },
      log,
    )
  } catch (error) {
    if (error instanceof SpoolLockedError) {
      throw new UserError(error.message, { hint: 'stop that broker first; it replays its own spool' })
    }
    throw error
  }
  const pool = new pg.Pool({ ...options.connection, max: 2, application_name: 'queenctl spool replay' })
  pool.on('error', () => undefined)
  try {
    // Spool.open falls back to a temp directory when the one given is unusable: never replay that one.
    if (spool.dir !== dir) {
      throw new UserError(`spool directory ${dir} is not writable; replay must delete what it replayed`, {
        hint: "run as the broker's user (the directory is mode 0700)",
      })
    }
    const registry = new QueueRegistry(pool, config.jobs.stateRefreshMs)
    const cipher = config.encryptionKey === undefined ? undefined : new PayloadCipher(config.encryptionKey)
    const push = new PushEngine(
      pool,
      registry,
      { messagesStored: () => undefined },
      { lanes: 1, maxBatchItems: config.maxBatchItems, encryption: new PushEncryption(registry, cipher) },
      new BrokerEvents(),
    )
    const replayer = new SpoolReplayer(
      spool,
      (tenant, records) => push.replay(tenant, records),
      { maxBatch: config.spool.maxBatch, canReplay: () => true },
      log,
    )
    await replayer.runOnce()
    const remaining = spool.size.records
    if (remaining > 0) {
      throw new UserError(`replay stopped with ${remaining} record(s) left: PostgreSQL became unavailable`, {
        exitCode: EXIT.server,
        hint: 'run queenctl spool replay again once PostgreSQL is reachable; replayed records are not stored twice',
      })
    }
    return {
      dir,
      replayed: spool.counters.replayed,
      quarantined: spool.counters.quarantined,
      damaged: spool.counters.corrupt,
      remaining,
      partitions: options.plan.partitions,
    }
  } finally {
    await spool.close().catch(() => undefined)
    await pool.end().catch(() => undefined)
  }
}
