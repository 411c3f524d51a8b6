/**
 * Appends to the active spool segment with group commit (docs/operations.md, "Durability and rotation"): a request's
 * records go out in one write, and requests that arrive while a write+fsync is under way share the next one. Nothing is
 * acknowledged before its fsync. A failed write or fsync truncates the segment back to its last durable length, so no
 * torn bytes remain between records; after an fsync failure the segment is sealed and the next append opens a new one
 * (docs/operations.md, "Disk full").
 */
import type { FileHandle } from 'node:fs/promises'
import { open, rename } from 'node:fs/promises'
import path from 'node:path'
import { newUuidV7 } from '../ids.js'
import { SEGMENT_MAGIC } from './record-format.js'
import { fsyncDirectory } from './spool-directory.js'

/** Seal the active segment at this size even below the record limit. */
const MAX_SEGMENT_BYTES = 64 * 1024 * 1024

/** Test hooks (QUEEN_TEST_HOOKS only): make writes fail once the spool has taken this many bytes. */
export interface SpoolWriteHooks {
  failAfterBytes?: number
}

interface PendingAppend {
  buffer: Buffer
  records: number
  resolve: () => void
  reject: (error: unknown) => void
}

/** Settings of the writer. */
export interface SegmentWriterOptions {
  dir: string
  eventsPerFile: number
  /** Called after a segment was sealed (renamed to `.seg`), with its path. */
  onSealed: (segmentPath: string) => void
  hooks: SpoolWriteHooks
}

/** The writer of the active segment. */
export class SegmentWriter {
  private readonly options: SegmentWriterOptions
  private handle: FileHandle | undefined
  private openPath: string | undefined
  private durableBytes = 0
  private records = 0
  private pending: PendingAppend[] = []
  private flushing: Promise<void> | undefined
  /** Bytes written through this writer (for the failAfterBytes hook). */
  private writtenBytes = 0
  /** Epoch ms of the last append (idle sealing). */
  lastAppendAt = 0

  constructor(options: SegmentWriterOptions) {
    this.options = options
  }

  /** Records in the active segment. */
  get activeRecords(): number {
    return this.records
  }

  /** Appends one request's encoded records; resolves once they are on disk (fsynced). */
  append(buffer: Buffer, records: number): Promise<void> {
    this.lastAppendAt = Date.now()
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ buffer, records, resolve, reject })
      this.flushing ??= this.flush().finally(() => {
        this.flushing = undefined
      })
    })
  }

  /** Seals the active segment, if any (idle timer, replay, shutdown); waits for writes under way. */
  async seal(): Promise<void> {
    while (this.flushing) await this.flushing
    await this.closeActive(false)
  }

  private async ensureSegment(): Promise<FileHandle> {
    if (this.handle) return this.handle
    const openPath = path.join(this.options.dir, `${newUuidV7()}.open`)
    const handle = await open(openPath, 'wx', 0o600)
    try {
      await handle.write(SEGMENT_MAGIC, 0, SEGMENT_MAGIC.length, 0)
      await handle.sync()
      await fsyncDirectory(this.options.dir)
    } catch (error) {
      await handle.close().catch(() => undefined)
      throw error
    }
    this.handle = handle
    this.openPath = openPath
    this.durableBytes = SEGMENT_MAGIC.length
    this.records = 0
    return handle
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending
      this.pending = []
      const buffer = Buffer.concat(batch.map((entry) => entry.buffer))
      const records = batch.reduce((sum, entry) => sum + entry.records, 0)
      let stage: 'write' | 'sync' = 'write'
      try {
        const handle = await this.ensureSegment()
        const limit = this.options.hooks.failAfterBytes
        if (limit !== undefined && this.writtenBytes + buffer.length > limit) {
          // Simulate a full disk after a partial write, the way ENOSPC tears a record.
          const room = Math.max(0, limit - this.writtenBytes)
          if (room > 0) await handle.write(buffer, 0, Math.min(room, buffer.length), this.durableBytes)
          throw Object.assign(new Error('ENOSPC: no space left on device (test hook)'), { code: 'ENOSPC' })
        }
        let written = 0
        while (written < buffer.length) {
          const { bytesWritten } = await handle.write(
            buffer,
            written,
            buffer.length - written,
            this.durableBytes + written,
          )
          if (bytesWritten === 0) throw Object.assign(new Error('short write'), { code: 'EIO' })
          written += bytesWritten
        }
        stage = 'sync'
        await handle.datasync()
        this.durableBytes += buffer.length
        this.records += records
        this.writtenBytes += buffer.length
        for (const entry of batch) entry.resolve()
      } catch (error) {
        await this.discardTornBytes(stage)
        for (const entry of batch) entry.reject(error)
        continue
      }
      if (this.records >= this.options.eventsPerFile || this.durableBytes >= MAX_SEGMENT_BYTES) {
        await this.sealQuietly()
      }
    }
  }

  /** Truncates the segment to its last durable length; after a failed fsync the segment is sealed. */
  private async discardTornBytes(stage: 'write' | 'sync'): Promise<void> {
    if (!this.handle) return
    try {
      await this.handle.truncate(this.durableBytes)
      await this.handle.sync()
    } catch {
      // The truncate itself failed (the disk is gone): the reader treats the tail as torn.
    }
    if (stage === 'sync') await this.sealQuietly()
  }

  private async sealQuietly(): Promise<void> {
    await this.closeActive(true)
  }

  /** fsyncs, closes and renames the active segment `.open` -> `.seg`, then fsyncs the directory. */
  private async closeActive(quiet: boolean): Promise<void> {
    const handle = this.handle
    const openPath = this.openPath
    if (!handle || !openPath) return
    // Cleared first, so appends arriving during the awaits below open a new segment.
    this.handle = undefined
    this.openPath = undefined
    this.records = 0
    this.durableBytes = 0
    const sealedPath = openPath.replace(/\.open$/, '.seg')
    try {
      await handle.sync()
      await handle.close()
      await rename(openPath, sealedPath)
      await fsyncDirectory(this.options.dir)
    } catch (error) {
      await handle.close().catch(() => undefined)
      if (!quiet) throw error
    }
    this.options.onSealed(sealedPath)
  }
}
