/**
 * Spool replay without a running broker (docs/operations.md, "A broker that will not come back"): the one
 * wiring of the spool, the queue registry, the cipher and the push engine's replay statement outside a
 * broker. `queenctl spool replay` calls it for the spool of a broker that will not start again. It runs the
 * broker's own code: Spool.open (the directory lock and the recovery of an unfinished segment) and the
 * SpoolReplayer (oldest segment first, progress fsynced, poison records quarantined, a segment deleted
 * only when every record is settled), with the original transaction ids, so a repeat stores nothing twice.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import type { BrokerConfig } from './config/broker-config.js'
import { PayloadCipher } from './crypto/payload-cipher.js'
import { PushEncryption } from './engine/push-encryption.js'
import { PushEngine } from './engine/push-engine.js'
import { QueueRegistry } from './engine/queue-registry.js'
import { BrokerEvents } from './observe/broker-events.js'
import { RECORD_OVERHEAD_BYTES } from './spool/record-format.js'
import { SpoolReplayer } from './spool/spool-replayer.js'
import { Spool } from './spool/spool.js'

/** What an offline replay did. */
export interface OfflineReplayResult {
  replayed: number
  quarantined: number
  /** Damaged byte ranges and torn tails moved to failed/. */
  damaged: number
  /** Records still awaiting replay afterwards (0 unless PostgreSQL went away mid-way). */
  remaining: number
}

/** The spool could be opened but is not the directory asked for (it fell back to a temporary one). */
export class SpoolNotWritableError extends Error {}

/**
 * Replays everything `dir` holds into the database of `pool`. Throws SpoolLockedError when a live broker
 * owns the directory, SpoolNotWritableError when it cannot be written (replay must delete what it replayed).
 */
export async function replaySpoolOffline(options: {
  dir: string
  pool: pg.Pool
  config: Pick<BrokerConfig, 'spool' | 'maxBodyBytes' | 'maxBatchItems' | 'encryptionKey' | 'jobs'>
  log: Logger
}): Promise<OfflineReplayResult> {
  const { config, dir, pool, log } = options
  const spool = await Spool.open(
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
  try {
    // Spool.open falls back to a temp directory when the one given is unusable: never replay that one.
    if (spool.dir !== dir) throw new SpoolNotWritableError(`spool directory ${dir} is not writable`)
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
    return {
      replayed: spool.counters.replayed,
      quarantined: spool.counters.quarantined,
      damaged: spool.counters.corrupt,
      remaining: spool.size.records,
    }
  } finally {
    await spool.close().catch(() => undefined)
  }
}
