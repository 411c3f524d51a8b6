/**
 * The disk spool (docs/operations.md, "The disk spool"): the only broker-local state. Pushes accepted while PostgreSQL
 * is unreachable or push-maintenance is on are appended here (fsynced before `buffered` is answered) and
 * later replayed in order. This module owns the directory, the active segment writer, recovery at boot,
 * and the per-partition count of records awaiting replay that keeps partition order across an outage.
 */
import { readdir, readFile, rename, stat, truncate } from 'node:fs/promises'
import path from 'node:path'
import type { Logger } from 'pino'
import { encodeRecords, scanSegment, type SpoolRecord } from './record-format.js'
import { SegmentWriter, type SpoolWriteHooks } from './segment-writer.js'
import { fsyncDirectory, openSpoolDirectory, SpoolLockedError, type OpenedSpoolDirectory } from './spool-directory.js'
import type { SpoolState } from '../../wire/index.js'

/** The spool's health as /health, /status/buffers and metrics report it. */
export type { SpoolState }

/** Settings of the spool (docs/configuration.md, "Spool"). */
export interface SpoolOptions {
  dir: string
  serverId: string
  eventsPerFile: number
  flushMs: number
  /** Refuse to grow past this many bytes awaiting replay; 0 = the disk is the limit. */
  maxBytes: number
  /** Upper bound of one record's JSON (QUEEN_MAX_BODY_BYTES + 64 KiB). */
  maxRecordBytes: number
}

/** Raised when the spool cannot take records: nothing was stored. */
export class SpoolUnavailableError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`spool unavailable: ${reason}`, options)
    this.name = 'SpoolUnavailableError'
  }
}

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG'])

/** Identifies a partition in the pending map. */
export function partitionKey(tenant: string, queue: string, partition: string): string {
  return `${tenant}\u0000${queue}\u0000${partition}`
}

/** The spool of one broker. */
export class Spool {
  readonly options: SpoolOptions
  readonly hooks: SpoolWriteHooks = {}
  private readonly log: Logger
  private directory: OpenedSpoolDirectory | undefined
  private writer: SegmentWriter | undefined
  private readonly pending = new Map<string, number>()
  private pendingRecords = 0
  private pendingBytes = 0
  private full = false
  private lastFullWarning = 0
  /** True while the replayer works through records. */
  replaying = false
  /** Counters for metrics. */
  readonly counters = { written: 0, replayed: 0, quarantined: 0, corrupt: 0, writeErrors: 0 }
  private idleTimer: NodeJS.Timeout | undefined
  private sealedSegmentCount = 0

  private constructor(options: SpoolOptions, log: Logger) {
    this.options = options
    this.log = log
  }

  /**
   * Opens the spool: the directory (or its fallback), recovery of an unfinished segment, and the count of
   * records awaiting replay. Throws SpoolLockedError when another live broker owns the directory; any other
   * failure leaves the spool `unwritable` (pushes then need PostgreSQL).
   */
  static async open(options: SpoolOptions, log: Logger): Promise<Spool> {
    const spool = new Spool(options, log)
    try {
      spool.directory = await openSpoolDirectory(options.dir, options.serverId)
    } catch (error) {
      if (error instanceof SpoolLockedError) throw error
      log.error({ err: error, dir: options.dir }, 'spool unwritable: pushes need PostgreSQL')
      return spool
    }
    if (spool.directory.fallback) {
      log.warn(
        { dir: spool.directory.dir, reason: spool.directory.fallbackReason },
        'spool fallback: using the OS temp directory, which may not survive a reboot or pod replacement',
      )
    }
    await spool.recover()
    spool.writer = new SegmentWriter({
      dir: spool.directory.dir,
      eventsPerFile: options.eventsPerFile,
      hooks: spool.hooks,
      onSealed: () => {
        spool.sealedSegmentCount += 1
      },
    })
    spool.idleTimer = setInterval(
      () => {
        const writer = spool.writer
        if (writer && writer.activeRecords > 0 && Date.now() - writer.lastAppendAt >= 2 * options.flushMs) {
          writer.seal().catch((error: unknown) => log.error({ err: error }, 'spool seal failed'))
        }
      },
      Math.max(10, options.flushMs),
    )
    spool.idleTimer.unref()
    return spool
  }

  /** The directory in use, or undefined when unwritable. */
  get dir(): string | undefined {
    return this.directory?.dir
  }

  /** The OS temp directory in use when the configured one could not be used; undefined otherwise. */
  get fallbackDir(): string | undefined {
    return this.directory?.fallback ? this.directory.dir : undefined
  }

  /** Current state. */
  get state(): SpoolState {
    if (!this.directory) return 'unwritable'
    if (this.full) return 'full'
    if (this.replaying && this.pendingRecords > 0) return 'replaying'
    return this.directory.fallback ? 'fallback' : 'ok'
  }

  /** Segments on disk awaiting replay, the active one included. */
  get segmentCount(): number {
    return this.sealedSegmentCount + (this.writer && this.writer.activeRecords > 0 ? 1 : 0)
  }

  /** Called by the replayer when it deleted a fully replayed segment. */
  segmentRemoved(): void {
    this.sealedSegmentCount = Math.max(0, this.sealedSegmentCount - 1)
  }

  /** Records awaiting replay and their bytes. */
  get size(): { records: number; bytes: number } {
    return { records: this.pendingRecords, bytes: this.pendingBytes }
  }

  /** True while the partition has records awaiting replay: new pushes to it must be spooled too (order). */
  hasPending(tenant: string, queue: string, partition: string): boolean {
    return (this.pending.get(partitionKey(tenant, queue, partition)) ?? 0) > 0
  }

  /** True when there is anything to replay. */
  get hasWork(): boolean {
    return this.pendingRecords > 0
  }

  /**
   * Appends records durably. The partitions count as pending from the moment of the call, so pushes that
   * arrive while the write is under way follow these records. Throws SpoolUnavailableError when the
   * records could not be stored.
   */
  async append(records: SpoolRecord[]): Promise<void> {
    if (!this.writer) throw new SpoolUnavailableError('spool directory is not writable')
    const buffer = encodeRecords(records)
    if (this.options.maxBytes > 0 && this.pendingBytes + buffer.length > this.options.maxBytes) {
      this.markFull()
      throw new SpoolUnavailableError(`spool is at its size limit (QUEEN_SPOOL_MAX_BYTES=${this.options.maxBytes})`)
    }
    this.track(records, buffer.length, 1)
    try {
      await this.writer.append(buffer, records.length)
    } catch (error) {
      this.track(records, buffer.length, -1)
      this.counters.writeErrors += 1
      const code = (error as NodeJS.ErrnoException).code ?? ''
      if (FULL_CODES.has(code)) {
        this.markFull()
        throw new SpoolUnavailableError('no space left on device', { cause: error })
      }
      throw new SpoolUnavailableError((error as Error).message, { cause: error })
    }
    this.full = false
    this.counters.written += records.length
  }

  /** Marks records as replayed or quarantined: their partitions may go straight to PostgreSQL again. */
  settled(records: SpoolRecord[], bytes: number): void {
    this.track(records, bytes, -1)
  }

  /** Seals the active segment so the replayer can take it. */
  async sealActive(): Promise<void> {
    await this.writer?.seal()
  }

  /** Sealed segments awaiting replay, oldest first (ids are UUIDv7, so names sort by creation). */
  async sealedSegments(): Promise<string[]> {
    if (!this.directory) return []
    const names = await readdir(this.directory.dir)
    return names
      .filter((name) => name.endsWith('.seg'))
      .sort()
      .map((name) => path.join(this.directory!.dir, name))
  }

  /** Seals the active segment and releases the directory lock (shutdown). */
  async close(): Promise<void> {
    if (this.idleTimer) clearInterval(this.idleTimer)
    await this.writer?.seal()
    await this.directory?.release()
  }

  private track(records: SpoolRecord[], bytes: number, sign: 1 | -1): void {
    for (const record of records) {
      const key = partitionKey(record.tenant, record.queue, record.partition)
      const next = (this.pending.get(key) ?? 0) + sign
      if (next > 0) this.pending.set(key, next)
      else this.pending.delete(key)
    }
    this.pendingRecords = Math.max(0, this.pendingRecords + sign * records.length)
    this.pendingBytes = Math.max(0, this.pendingBytes + sign * bytes)
  }

  private markFull(): void {
    this.full = true
    if (Date.now() - this.lastFullWarning > 60_000) {
      this.lastFullWarning = Date.now()
      this.log.warn({ dir: this.dir, pending_bytes: this.pendingBytes }, 'spool full: pushes are refused with 503')
    }
  }

  /**
   * Boot recovery (docs/operations.md, "Durability and rotation"): an unfinished `.open` segment has its torn tail
   * (never acknowledged, since fsync precedes every answer) truncated and is sealed; then every segment is scanned from
   * its replay progress to count what awaits replay. Nothing is deleted here.
   */
  private async recover(): Promise<void> {
    const dir = this.directory!.dir
    for (const name of (await readdir(dir)).filter((entry) => entry.endsWith('.open')).sort()) {
      const file = path.join(dir, name)
      const scan = scanSegment(await readFile(file), this.options.maxRecordBytes)
      if (scan.tornTail) {
        await truncate(file, scan.tornTail.offset)
        this.log.warn({ segment: name, bytes: scan.tornTail.end - scan.tornTail.offset }, 'spool: torn tail truncated')
      }
      await rename(file, file.replace(/\.open$/, '.seg'))
    }
    await fsyncDirectory(dir)
    for (const segment of await this.sealedSegments()) {
      this.sealedSegmentCount += 1
      const from = await readProgress(segment)
      const scan = scanSegment(await readFile(segment), this.options.maxRecordBytes, from)
      for (const decoded of scan.records) this.track([decoded.record], decoded.end - decoded.offset, 1)
    }
    if (this.pendingRecords > 0) {
      this.log.info({ records: this.pendingRecords, bytes: this.pendingBytes }, 'spool: records awaiting replay')
    }
  }
}

/** The progress file of a segment (offset of its next record), or the first record offset. */
export function progressPath(segment: string): string {
  return segment.replace(/\.seg$/, '.progress')
}

/** Reads a segment's replay progress. */
export async function readProgress(segment: string): Promise<number> {
  const text = await readFile(progressPath(segment), 'utf8').catch(() => '')
  const offset = Number.parseInt(text.trim(), 10)
  return Number.isSafeInteger(offset) && offset > 0 ? offset : 0
}

/** Size of a file, or 0 when it does not exist. */
export async function fileSize(file: string): Promise<number> {
  return (await stat(file).catch(() => ({ size: 0 }))).size
}
