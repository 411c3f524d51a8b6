/**
 * The spool's on-disk format (docs/operations.md, "Spool record format"): a segment starts with the 8-byte magic
 * `QSPOOL01`, then
 * records back to back, each `u32 BE length | u32 BE CRC-32 (zlib) of the JSON | JSON`. The reader checks
 * every record's length bound and CRC, and resynchronises after damage by scanning forward for the next
 * offset whose length and CRC validate, so damage costs only the damaged bytes.
 */
import { crc32 } from 'node:zlib'

/** The segment magic. */
export const SEGMENT_MAGIC = Buffer.from('QSPOOL01', 'ascii')
/** Bytes before a record's JSON. */
export const RECORD_HEADER_BYTES = 8
/** A record may exceed QUEEN_MAX_BODY_BYTES by this much (its own fields around the payload). */
export const RECORD_OVERHEAD_BYTES = 64 * 1024

/** One spooled push item (docs/operations.md, "Spool record format"). */
export interface SpoolRecord {
  v: 1
  tenant: string
  queue: string
  partition: string
  transactionId: string
  traceId: string | null
  producerSub: string | null
  /** Acceptance time, epoch ms UTC; the dedup window is judged against it at replay. */
  acceptedAt: number
  requestId: string
  /** True when `payload` is the ciphertext object of an encrypted queue. */
  encrypted: boolean
  payload: unknown
}

/** Encodes records as one contiguous buffer (one write per request). */
export function encodeRecords(records: SpoolRecord[]): Buffer {
  const parts: Buffer[] = []
  for (const record of records) {
    const json = Buffer.from(JSON.stringify(record), 'utf8')
    const header = Buffer.alloc(RECORD_HEADER_BYTES)
    header.writeUInt32BE(json.length, 0)
    header.writeUInt32BE(crc32(json), 4)
    parts.push(header, json)
  }
  return Buffer.concat(parts)
}

/** A decoded record with where it sits in its segment. */
export interface DecodedRecord {
  record: SpoolRecord
  offset: number
  /** Offset just past the record. */
  end: number
}

/** A damaged byte range the reader skipped. */
export interface DamagedRange {
  offset: number
  end: number
  reason: string
}

/** Everything a scan of a segment found. */
export interface SegmentScan {
  /** False when the file does not start with the magic. */
  magicOk: boolean
  records: DecodedRecord[]
  damaged: DamagedRange[]
  /**
   * An incomplete final record (a write cut short by a crash or a full disk), never acknowledged since
   * fsync precedes every answer; reported separately from damage.
   */
  tornTail: { offset: number; end: number } | undefined
}

/** True for a JSON value shaped like a spool record. */
export function isSpoolRecord(value: unknown): value is SpoolRecord {
  if (value === null || typeof value !== 'object') return false
  const record = value as Record<string, unknown>
  return (
    record.v === 1 &&
    typeof record.queue === 'string' &&
    typeof record.partition === 'string' &&
    typeof record.transactionId === 'string' &&
    typeof record.acceptedAt === 'number'
  )
}

/** Tries to decode a record at `offset`; undefined when the bytes there are not a valid record. */
function recordAt(
  buffer: Buffer,
  offset: number,
  maxRecordBytes: number,
  accept: (value: unknown) => boolean,
): DecodedRecord | 'short' | undefined {
  if (offset + RECORD_HEADER_BYTES > buffer.length) return 'short'
  const length = buffer.readUInt32BE(offset)
  if (length < 1 || length > maxRecordBytes) return undefined
  const end = offset + RECORD_HEADER_BYTES + length
  if (end > buffer.length) return 'short'
  const json = buffer.subarray(offset + RECORD_HEADER_BYTES, end)
  if (crc32(json) !== buffer.readUInt32BE(offset + 4)) return undefined
  try {
    const parsed: unknown = JSON.parse(json.toString('utf8'))
    return accept(parsed) ? { record: parsed as SpoolRecord, offset, end } : undefined
  } catch {
    return undefined
  }
}

/**
 * Scans a segment from `from` (the first record offset by default); `accept` decides which JSON frames
 * count as records (quarantine files hold other frames). Damage is skipped by resynchronising
 * on the next offset holding a valid record; bytes that never resynchronise up to the end of the file are
 * a torn tail when they could be the start of one unfinished record, otherwise damage.
 */
export function scanSegment(
  buffer: Buffer,
  maxRecordBytes: number,
  from = SEGMENT_MAGIC.length,
  accept: (value: unknown) => boolean = isSpoolRecord,
): SegmentScan {
  const magicOk =
    buffer.length >= SEGMENT_MAGIC.length && buffer.subarray(0, SEGMENT_MAGIC.length).equals(SEGMENT_MAGIC)
  const records: DecodedRecord[] = []
  const damaged: DamagedRange[] = []
  let tornTail: SegmentScan['tornTail']
  let offset = magicOk ? Math.max(from, SEGMENT_MAGIC.length) : Math.max(from, 0)
  if (!magicOk && from <= SEGMENT_MAGIC.length) {
    damaged.push({
      offset: 0,
      end: Math.min(SEGMENT_MAGIC.length, buffer.length),
      reason: 'corrupt: segment magic missing',
    })
    offset = Math.min(SEGMENT_MAGIC.length, buffer.length)
  }
  while (offset < buffer.length) {
    const found = recordAt(buffer, offset, maxRecordBytes, accept)
    if (found !== undefined && found !== 'short') {
      records.push(found)
      offset = found.end
      continue
    }
    // Resynchronise: the next offset where a complete, valid record starts.
    let next = offset + 1
    let resynced: DecodedRecord | undefined
    while (next < buffer.length) {
      const candidate = recordAt(buffer, next, maxRecordBytes, accept)
      if (candidate !== undefined && candidate !== 'short') {
        resynced = candidate
        break
      }
      next += 1
    }
    if (resynced) {
      damaged.push({ offset, end: resynced.offset, reason: `corrupt: crc mismatch at offset ${offset}` })
      offset = resynced.offset
      continue
    }
    if (found === 'short' && buffer.length - offset >= RECORD_HEADER_BYTES) {
      const length = buffer.readUInt32BE(offset)
      if (length >= 1 && length <= maxRecordBytes) {
        tornTail = { offset, end: buffer.length }
        break
      }
    } else if (found === 'short') {
      tornTail = { offset, end: buffer.length }
      break
    }
    damaged.push({ offset, end: buffer.length, reason: `corrupt: crc mismatch at offset ${offset}` })
    break
  }
  return { magicOk, records, damaged, tornTail }
}
