/**
 * The spool's quarantine, `failed/<segment id>.seg` (docs/operations.md, "Corruption and quarantine"): records
 * PostgreSQL rejected for good and byte ranges that failed their checksum, each with its reason, framed like spool
 * records so a torn write is detectable. Never deleted by the broker; `queenctl spool inspect --failed` lists them.
 */
import { open } from 'node:fs/promises'
import path from 'node:path'
import { crc32 } from 'node:zlib'
import { RECORD_HEADER_BYTES, SEGMENT_MAGIC, type SpoolRecord } from './record-format.js'
import { fsyncDirectory } from './spool-directory.js'

/** One quarantine entry. */
export interface QuarantineEntry {
  reason: string
  /** ISO time of quarantine. */
  failedAt: string
  attempts: number
  /** File name of the segment the bytes came from. */
  sourceSegment: string
  offset: number
  /** The record PostgreSQL refused (poison), when it could be decoded. */
  record?: SpoolRecord
  /** The damaged bytes, base64 (corruption), when the record could not be decoded. */
  bytes?: string
}

/** True for a JSON frame shaped like a quarantine entry. */
export function isQuarantineEntry(value: unknown): value is QuarantineEntry {
  if (value === null || typeof value !== 'object') return false
  const entry = value as Record<string, unknown>
  return typeof entry.reason === 'string' && typeof entry.sourceSegment === 'string' && typeof entry.offset === 'number'
}

/** Appends entries to the quarantine file of `segment` and fsyncs it (and the directory when new). */
export async function quarantine(spoolDir: string, segment: string, entries: QuarantineEntry[]): Promise<void> {
  if (entries.length === 0) return
  const failedDir = path.join(spoolDir, 'failed')
  const file = path.join(failedDir, path.basename(segment))
  const handle = await open(file, 'a+', 0o600)
  try {
    const { size } = await handle.stat()
    const parts: Buffer[] = size === 0 ? [SEGMENT_MAGIC] : []
    for (const entry of entries) {
      const json = Buffer.from(JSON.stringify(entry), 'utf8')
      const header = Buffer.alloc(RECORD_HEADER_BYTES)
      header.writeUInt32BE(json.length, 0)
      header.writeUInt32BE(crc32(json), 4)
      parts.push(header, json)
    }
    await handle.write(Buffer.concat(parts))
    await handle.sync()
    if (size === 0) await fsyncDirectory(failedDir)
  } finally {
    await handle.close()
  }
}
