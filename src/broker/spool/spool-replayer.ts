/**
 * Spool replay (docs/operations.md, "Spool replay" and "Corruption and quarantine"): oldest segment first, records in
 * file order, in batches of FILE_BUFFER_MAX_BATCH through the normal push statement with the original transaction ids
 * and acceptance times (so replay is idempotent), progress fsynced after every committed batch, a segment deleted only
 * when every record in it was replayed or quarantined. A record PostgreSQL refuses for good (a fault of its data) is
 * retried alone up to 5 times, then quarantined, and replay goes on; damaged bytes are quarantined with their reason.
 * An outage, or any failure that is the server's rather than the record's (a read-only server after a failover, a
 * conflict, a timeout), pauses replay with backoff (1 s doubling to 30 s) and never sets a record aside: an accepted
 * push is only ever quarantined for its data.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Logger } from 'pino'
import { classifyPgError, isDataFault } from '../../platform/postgres/pg-errors.js'
import { quarantine, type QuarantineEntry } from './quarantine.js'
import { scanSegment, type DecodedRecord, type SpoolRecord } from './record-format.js'
import { fsyncDirectory } from './spool-directory.js'
import { progressPath, readProgress, type Spool } from './spool.js'

/** Stores replayed records (through the push statement, replay mode); throws on failure. */
export type ReplayStore = (tenant: string, records: SpoolRecord[]) => Promise<void>

/** Settings of the replayer. */
export interface ReplayerOptions {
  maxBatch: number
  /** Attempts of a record that fails alone before it is quarantined. */
  poisonAttempts?: number
  /** First retry delay of a failing record, doubled per attempt. */
  poisonBackoffMs?: number
  /** Whether replay may run now: PostgreSQL reachable, schema ready, push-maintenance off. */
  canReplay: () => boolean
  /** Hook after records are stored (wake-ups, metrics). */
  onReplayed?: (records: SpoolRecord[]) => void
  /** Hook when PostgreSQL turned out unavailable mid-replay (marks the database down). */
  onUnavailable?: (error: unknown) => void
}

class ReplayPaused extends Error {
  readonly reason: unknown
  constructor(reason: unknown) {
    super('replay paused')
    this.reason = reason
  }
}

const OUTAGE_BACKOFF_START_MS = 1000
const OUTAGE_BACKOFF_MAX_MS = 30_000

/** Drives replay; `runOnce()` is called by a BackgroundLoop every FILE_BUFFER_FLUSH_MS. */
export class SpoolReplayer {
  private readonly spool: Spool
  private readonly store: ReplayStore
  private readonly options: ReplayerOptions
  private readonly log: Logger
  private pausedUntil = 0
  private outageBackoffMs = OUTAGE_BACKOFF_START_MS
  private running: Promise<void> | undefined

  constructor(spool: Spool, store: ReplayStore, options: ReplayerOptions, log: Logger) {
    this.spool = spool
    this.store = store
    this.options = options
    this.log = log.child({ component: 'spool' })
  }

  /** Resolves when no replay is running (shutdown waits for the current batch this way). */
  async whenIdle(): Promise<void> {
    await this.running?.catch(() => undefined)
  }

  /** Clears the outage backoff: PostgreSQL was seen writable again, so replay may start at once. */
  resume(): void {
    this.pausedUntil = 0
    this.outageBackoffMs = OUTAGE_BACKOFF_START_MS
  }

  /** Replays what can be replayed now; concurrent calls share one run. */
  runOnce(): Promise<void> {
    this.running ??= this.run().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  private async run(): Promise<void> {
    if (!this.spool.dir || !this.spool.hasWork || Date.now() < this.pausedUntil || !this.options.canReplay()) return
    const started = Date.now()
    let replayed = 0
    let quarantined = 0
    let segments = 0
    this.spool.replaying = true
    this.log.info({ records: this.spool.size.records }, 'spool replay started')
    try {
      await this.spool.sealActive()
      for (const segment of await this.spool.sealedSegments()) {
        const result = await this.replaySegment(segment)
        replayed += result.replayed
        quarantined += result.quarantined
        segments += 1
        if (!this.options.canReplay()) break
      }
      this.outageBackoffMs = OUTAGE_BACKOFF_START_MS
      this.log.info(
        { records: replayed, segments, quarantined, duration_ms: Date.now() - started },
        'spool replay finished',
      )
    } catch (error) {
      if (!(error instanceof ReplayPaused)) throw error
      this.pausedUntil = Date.now() + this.outageBackoffMs
      const unavailable = classifyPgError(error.reason) === 'unavailable'
      if (unavailable) this.options.onUnavailable?.(error.reason)
      this.log.warn(
        { records: replayed, retry_in_ms: this.outageBackoffMs, err: error.reason },
        unavailable ? 'spool replay paused: database unavailable' : 'spool replay paused: database refused the batch',
      )
      this.outageBackoffMs = Math.min(OUTAGE_BACKOFF_MAX_MS, this.outageBackoffMs * 2)
    } finally {
      this.spool.replaying = false
    }
  }

  private async replaySegment(segment: string): Promise<{ replayed: number; quarantined: number }> {
    const name = path.basename(segment)
    const from = await readProgress(segment)
    const scan = scanSegment(await readFile(segment), this.spool.options.maxRecordBytes, from)
    const buffer = scan.damaged.length > 0 ? await readFile(segment) : undefined
    const damaged: QuarantineEntry[] = scan.damaged.map((range) => ({
      reason: `${range.reason} of ${name}`,
      failedAt: new Date().toISOString(),
      attempts: 0,
      sourceSegment: name,
      offset: range.offset,
      bytes: buffer?.subarray(range.offset, range.end).toString('base64'),
    }))
    if (scan.tornTail) {
      damaged.push({
        reason: `torn record at offset ${scan.tornTail.offset} of ${name}`,
        failedAt: new Date().toISOString(),
        attempts: 0,
        sourceSegment: name,
        offset: scan.tornTail.offset,
        bytes: (buffer ?? (await readFile(segment)))
          .subarray(scan.tornTail.offset, scan.tornTail.end)
          .toString('base64'),
      })
    }
    if (damaged.length > 0) {
      await quarantine(this.spool.dir!, segment, damaged)
      this.spool.counters.corrupt += damaged.length
      this.log.warn({ segment: name, ranges: damaged.length }, 'spool: damaged records quarantined')
    }

    let replayed = 0
    let quarantinedRecords = 0
    for (let index = 0; index < scan.records.length; index += this.options.maxBatch) {
      if (!this.options.canReplay()) throw new ReplayPaused(undefined)
      const batch = scan.records.slice(index, index + this.options.maxBatch)
      const outcome = await this.replayBatch(segment, batch)
      replayed += outcome.replayed
      quarantinedRecords += outcome.quarantined
      await writeProgress(segment, batch[batch.length - 1]!.end)
    }
    // Every record is replayed or quarantined (and the quarantine fsynced): the segment may go.
    await rm(progressPath(segment), { force: true })
    await rm(segment, { force: true })
    await fsyncDirectory(this.spool.dir!)
    this.spool.segmentRemoved()
    return { replayed, quarantined: quarantinedRecords }
  }

  private async replayBatch(
    segment: string,
    batch: DecodedRecord[],
  ): Promise<{ replayed: number; quarantined: number }> {
    try {
      await this.storeByTenant(batch.map((decoded) => decoded.record))
      this.finish(batch)
      return { replayed: batch.length, quarantined: 0 }
    } catch (error) {
      if (!isDataFault(error)) throw new ReplayPaused(error)
      this.log.warn({ err: error, records: batch.length }, 'spool: replay batch failed; retrying record by record')
    }
    let replayed = 0
    let quarantined = 0
    for (const decoded of batch) {
      if (await this.replayAlone(segment, decoded)) replayed += 1
      else quarantined += 1
    }
    return { replayed, quarantined }
  }

  /** Retries one record alone; quarantines it when it keeps failing. Returns true when it was stored. */
  private async replayAlone(segment: string, decoded: DecodedRecord): Promise<boolean> {
    const attempts = this.options.poisonAttempts ?? 5
    let delay = this.options.poisonBackoffMs ?? 100
    let lastError: unknown
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        await this.store(decoded.record.tenant, [decoded.record])
        this.finish([decoded])
        return true
      } catch (error) {
        if (!isDataFault(error)) throw new ReplayPaused(error)
        lastError = error
        if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, delay))
        delay *= 2
      }
    }
    const reason = `replay failed: ${(lastError as Error).message}`
    await quarantine(this.spool.dir!, segment, [
      {
        reason,
        failedAt: new Date().toISOString(),
        attempts,
        sourceSegment: path.basename(segment),
        offset: decoded.offset,
        record: decoded.record,
      },
    ])
    this.spool.counters.quarantined += 1
    this.spool.settled([decoded.record], decoded.end - decoded.offset)
    this.log.error(
      { transaction_id: decoded.record.transactionId, queue: decoded.record.queue, reason },
      'spool: record quarantined',
    )
    return false
  }

  private async storeByTenant(records: SpoolRecord[]): Promise<void> {
    let start = 0
    while (start < records.length) {
      const tenant = records[start]!.tenant
      let end = start + 1
      while (end < records.length && records[end]!.tenant === tenant) end += 1
      await this.store(tenant, records.slice(start, end))
      start = end
    }
  }

  private finish(batch: DecodedRecord[]): void {
    const records = batch.map((decoded) => decoded.record)
    this.spool.settled(
      records,
      batch.reduce((sum, decoded) => sum + decoded.end - decoded.offset, 0),
    )
    this.spool.counters.replayed += records.length
    this.options.onReplayed?.(records)
  }
}

/** Records replay progress durably: write a temporary file, fsync, rename over the old one. */
async function writeProgress(segment: string, offset: number): Promise<void> {
  const file = progressPath(segment)
  const temporary = `${file}.tmp`
  await writeFile(temporary, String(offset), { mode: 0o600, flush: true })
  await rename(temporary, file)
}
