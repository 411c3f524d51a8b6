/**
 * How `queenctl spool inspect` (docs/cli.md, "queenctl spool inspect") shows what src/broker/spool/spool-inspect.ts
 * read: record lines in the shape `queenctl push --wrapped` accepts (`{queue, partition, transactionId, traceId, data,
 * _spool}`), encrypted payloads as `<encrypted>`, and the table columns of each section.
 */
import type {
  InspectedQuarantineEntry,
  InspectedRecord,
  PartitionSummary,
  SegmentSummary,
  SpoolInspection,
  SpoolProblem,
} from '../broker/spool/spool-inspect.js'
import type { SpoolRecord } from '../broker/spool/record-format.js'
import { formatAge, formatBytes, isoTime, truncate } from './format.js'
import type { Column } from './output.js'

/** What an encrypted payload shows as. */
export const ENCRYPTED_PAYLOAD = '<encrypted>'

/** One record as printed (NDJSON line, JSON and YAML element). */
export interface RecordLine {
  queue: string
  partition: string
  transactionId: string
  traceId: string | null
  /** The payload; `<encrypted>` for an encrypted queue's ciphertext. */
  data: unknown
  _spool: {
    /** Segment the record sits in (for a quarantined record: the segment it came from). */
    segment: string
    offset: number
    /** Acceptance time, ISO UTC. */
    acceptedAt: string | null
    tenant: string
    producerSub: string | null
    encrypted: boolean
    /** For a quarantined record: the quarantine file and why it is there. */
    quarantine?: { file: string; reason: string; failedAt: string; attempts: number }
  }
}

/** A quarantine entry as printed. */
export interface QuarantineLine {
  file: string
  offset: number
  reason: string
  failedAt: string
  attempts: number
  sourceSegment: string
  sourceOffset: number
  /** Size of the damaged bytes kept (entries of corruption). */
  bytes: number | null
  record: RecordLine | null
}

/** The typed result of `spool inspect` (`-o json`). */
export interface SpoolInspectResult extends Omit<SpoolInspection, 'records' | 'quarantined'> {
  records: RecordLine[]
  quarantined: QuarantineLine[]
}

function line(record: SpoolRecord, segment: string, offset: number): RecordLine {
  return {
    queue: record.queue,
    partition: record.partition,
    transactionId: record.transactionId,
    traceId: record.traceId,
    data: record.encrypted ? ENCRYPTED_PAYLOAD : record.payload,
    _spool: {
      segment,
      offset,
      acceptedAt: isoTime(record.acceptedAt),
      tenant: record.tenant,
      producerSub: record.producerSub,
      encrypted: record.encrypted,
    },
  }
}

/** A record awaiting replay as a line. */
export function recordLine(inspected: InspectedRecord): RecordLine {
  return line(inspected.record, inspected.segment, inspected.offset)
}

/** A quarantine entry as printed. */
export function quarantineLine(entry: InspectedQuarantineEntry): QuarantineLine {
  let record: RecordLine | null = null
  if (entry.record) {
    record = line(entry.record, entry.sourceSegment, entry.sourceOffset)
    record._spool.quarantine = {
      file: entry.file,
      reason: entry.reason,
      failedAt: entry.failedAt,
      attempts: entry.attempts,
    }
  }
  return {
    file: entry.file,
    offset: entry.offset,
    reason: entry.reason,
    failedAt: entry.failedAt,
    attempts: entry.attempts,
    sourceSegment: entry.sourceSegment,
    sourceOffset: entry.sourceOffset,
    bytes: entry.bytes,
    record,
  }
}

/** The result of an inspection, payloads masked where encrypted. */
export function inspectResult(inspection: SpoolInspection): SpoolInspectResult {
  return {
    ...inspection,
    records: inspection.records.map(recordLine),
    quarantined: inspection.quarantined.map(quarantineLine),
  }
}

function payloadText(data: unknown): string {
  return typeof data === 'string' ? data : (JSON.stringify(data) ?? 'null')
}

/** Columns of the segments table. */
export function segmentColumns(now: number): Column<SegmentSummary>[] {
  return [
    { header: 'SEGMENT', value: (row) => row.segment },
    { header: 'STATE', value: (row) => row.state },
    { header: 'RECORDS', value: (row) => row.records },
    { header: 'BYTES', value: (row) => formatBytes(row.bytes) },
    { header: 'OLDEST', value: (row) => formatAge(row.oldest, now) },
    { header: 'NEWEST', value: (row) => formatAge(row.newest, now) },
    { header: 'REPLAYED', value: (row) => row.replayed },
    {
      header: 'PROGRESS',
      value: (row) => (row.progressOffset === null ? null : String(row.progressOffset)),
      wide: true,
    },
    { header: 'DAMAGED', value: (row) => row.damaged, wide: true },
    { header: 'TORN', value: (row) => (row.torn ? 'yes' : 'no'), wide: true },
  ]
}

/** Columns of the per-partition table. */
export function partitionColumns(now: number): Column<PartitionSummary>[] {
  return [
    { header: 'TENANT', value: (row) => row.tenant, wide: true },
    { header: 'QUEUE', value: (row) => row.queue },
    { header: 'PARTITION', value: (row) => row.partition },
    { header: 'PENDING', value: (row) => row.pending },
    { header: 'OLDEST', value: (row) => formatAge(row.oldest, now) },
    { header: 'NEWEST', value: (row) => formatAge(row.newest, now) },
  ]
}

/** Columns of the decoded records (`--records N`); payloads shortened. */
export function recordColumns(now: number): Column<RecordLine>[] {
  return [
    { header: 'SEGMENT', value: (row) => row._spool.segment },
    { header: 'OFFSET', value: (row) => String(row._spool.offset) },
    { header: 'TENANT', value: (row) => row._spool.tenant, wide: true },
    { header: 'QUEUE', value: (row) => row.queue },
    { header: 'PARTITION', value: (row) => row.partition },
    { header: 'TRANSACTION', value: (row) => row.transactionId },
    { header: 'TRACE', value: (row) => row.traceId, wide: true },
    { header: 'ACCEPTED', value: (row) => formatAge(row._spool.acceptedAt, now) },
    { header: 'DATA', value: (row) => truncate(payloadText(row.data), 60) },
  ]
}

/** Columns of the quarantine (`--failed`). */
export function quarantineColumns(now: number): Column<QuarantineLine>[] {
  return [
    { header: 'FILE', value: (row) => row.file },
    { header: 'SOURCE', value: (row) => `${row.sourceSegment}@${row.sourceOffset}` },
    { header: 'QUEUE', value: (row) => row.record?.queue },
    { header: 'PARTITION', value: (row) => row.record?.partition },
    { header: 'TRANSACTION', value: (row) => row.record?.transactionId },
    { header: 'FAILED', value: (row) => formatAge(row.failedAt, now) },
    { header: 'ATTEMPTS', value: (row) => row.attempts },
    { header: 'BYTES', value: (row) => (row.bytes === null ? null : formatBytes(row.bytes)), wide: true },
    { header: 'REASON', value: (row) => row.reason },
  ]
}

/** Columns of the damage list (`--verify`). */
export function problemColumns(): Column<SpoolProblem>[] {
  return [
    { header: 'SEGMENT', value: (row) => row.segment },
    { header: 'KIND', value: (row) => row.kind },
    { header: 'FROM', value: (row) => String(row.offset) },
    { header: 'TO', value: (row) => String(row.end) },
    { header: 'BYTES', value: (row) => row.end - row.offset },
    { header: 'REASON', value: (row) => row.reason },
  ]
}
