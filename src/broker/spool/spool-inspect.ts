/**
 * A read-only view of a spool directory (docs/operations.md, "Spool directory and fallback", "Spool record format" and
 * "Corruption and quarantine"), for `queenctl spool inspect`: the segments with their records, bytes, acceptance times
 * and replay progress, the records awaiting replay per (tenant, queue, partition), the first records themselves, the
 * quarantine, and every damaged byte range (checked with the same reader the broker uses). It only ever reads, so it is
 * safe on a running broker's directory or a stopped pod's volume: no lock is taken, nothing is truncated, renamed or
 * written. An unfinished last record of the `.open` segment is a torn tail (never acknowledged), not damage.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { hostname } from 'node:os'
import path from 'node:path'
import { pidIsAlive } from '../../platform/postgres/system-users.js'
import { isQuarantineEntry, type QuarantineEntry } from './quarantine.js'
import { scanSegment, SEGMENT_MAGIC, type SpoolRecord } from './record-format.js'
import { readProgress } from './spool.js'

/** Where a segment is in its life. */
export type SegmentState = 'open' | 'sealed' | 'quarantine'

/** What to read. */
export interface InspectOptions {
  dir: string
  /** Upper bound of one record's JSON (QUEEN_MAX_BODY_BYTES + 64 KiB), as the broker uses it. */
  maxRecordBytes: number
  /** Only records of this queue (records, partitions, quarantine). */
  queue?: string
  /** Only records of this partition. */
  partition?: string
  /** Keep the first N records awaiting replay in `records`; default 0. */
  recordLimit?: number
  /** Decode the quarantine entries into `quarantined`. */
  failed?: boolean
  /** Called for every record awaiting replay that matches the filters, in replay order (streaming). */
  onRecord?: (record: InspectedRecord) => void
}

/** One file of the spool. */
export interface SegmentSummary {
  /** Path relative to the spool directory: `<id>.seg`, `<id>.open`, `failed/<id>.seg`. */
  segment: string
  state: SegmentState
  /** Valid records (quarantine entries for a quarantine file). */
  records: number
  /** File size. */
  bytes: number
  /** Earliest acceptance time of its records (quarantine: earliest failure), ISO UTC. */
  oldest: string | null
  /** Latest acceptance time (quarantine: latest failure), ISO UTC. */
  newest: string | null
  /** Records before the replay progress offset (sealed segments only; null otherwise). */
  replayed: number | null
  /** Offset of the next record to replay, from `<id>.progress` (sealed segments with progress only). */
  progressOffset: number | null
  /** Damaged byte ranges found. */
  damaged: number
  /** True when the `.open` segment ends with an unfinished record. */
  torn: boolean
}

/** Records awaiting replay of one (tenant, queue, partition). */
export interface PartitionSummary {
  tenant: string
  queue: string
  partition: string
  /** Records awaiting replay. */
  pending: number
  /** Earliest acceptance time among them, ISO UTC. */
  oldest: string
  /** Latest acceptance time among them, ISO UTC. */
  newest: string
}

/** A decoded record awaiting replay. */
export interface InspectedRecord {
  segment: string
  offset: number
  state: 'open' | 'sealed'
  record: SpoolRecord
}

/** A decoded quarantine entry. */
export interface InspectedQuarantineEntry {
  /** The quarantine file, `failed/<id>.seg`. */
  file: string
  /** Offset of the entry in the quarantine file. */
  offset: number
  reason: string
  failedAt: string
  attempts: number
  /** The segment the bytes came from, and where in it. */
  sourceSegment: string
  sourceOffset: number
  /** The record PostgreSQL refused, when it could be decoded (poison); null for damaged bytes. */
  record: SpoolRecord | null
  /** Size of the damaged bytes kept, when the entry holds bytes rather than a record. */
  bytes: number | null
}

/** A damaged byte range, or the torn tail of the `.open` segment. */
export interface SpoolProblem {
  segment: string
  kind: 'damaged' | 'torn'
  offset: number
  end: number
  reason: string
}

/** Who holds the directory, from `spool.lock` (null when there is no lock). */
export interface SpoolOwner {
  pid: number | null
  serverId: string | null
  host: string | null
  /** Whether that process still runs; null when the lock names another host (or no pid). */
  running: boolean | null
}

/** Everything `inspectSpool` found. */
export interface SpoolInspection {
  dir: string
  owner: SpoolOwner | null
  segments: SegmentSummary[]
  partitions: PartitionSummary[]
  /** The first `recordLimit` records awaiting replay (after the filters). */
  records: InspectedRecord[]
  /** Quarantine entries (after the filters), when `failed` was asked. */
  quarantined: InspectedQuarantineEntry[]
  /** Every damaged range and torn tail, in file order. */
  problems: SpoolProblem[]
  totals: {
    segments: number
    /** Records awaiting replay (all partitions, before the filters). */
    pending: number
    replayed: number
    /** Quarantine entries. */
    quarantined: number
    damaged: number
    torn: number
    bytes: number
  }
}

/** A quarantine entry may hold a whole segment's damaged bytes in base64: bound it by the length field only. */
const MAX_QUARANTINE_ENTRY_BYTES = 0xffff_ffff

function iso(ms: number | null): string | null {
  return ms === null || !Number.isFinite(ms) ? null : new Date(ms).toISOString()
}

async function readIfPresent(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file)
  } catch (error) {
    // The broker may have replayed and deleted a segment since the directory was listed.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

async function readOwner(dir: string): Promise<SpoolOwner | null> {
  const text = await readFile(path.join(dir, 'spool.lock'), 'utf8').catch(() => undefined)
  if (text === undefined) return null
  try {
    const owner = JSON.parse(text) as { pid?: unknown; serverId?: unknown; host?: unknown }
    const pid = typeof owner.pid === 'number' ? owner.pid : null
    const host = typeof owner.host === 'string' ? owner.host : null
    return {
      pid,
      serverId: typeof owner.serverId === 'string' ? owner.serverId : null,
      host,
      running: pid !== null && host === hostname() ? pidIsAlive(pid) : null,
    }
  } catch {
    return { pid: null, serverId: null, host: null, running: null }
  }
}

function matches(record: SpoolRecord, options: InspectOptions): boolean {
  return (
    (options.queue === undefined || record.queue === options.queue) &&
    (options.partition === undefined || record.partition === options.partition)
  )
}

/** Segment files sorted by id (UUIDv7, so by creation time): `.seg` and `.open`. */
async function segmentNames(dir: string): Promise<string[]> {
  const names = await readdir(dir)
  return names.filter((name) => name.endsWith('.seg') || name.endsWith('.open')).sort()
}

async function quarantineNames(dir: string): Promise<string[]> {
  const names = await readdir(path.join(dir, 'failed')).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [] as string[]
    throw error
  })
  return names.filter((name) => name.endsWith('.seg')).sort()
}

/**
 * Reads a spool directory without modifying it. Throws the file system's error when the directory
 * cannot be listed (ENOENT, ENOTDIR, EACCES).
 */
export async function inspectSpool(options: InspectOptions): Promise<SpoolInspection> {
  const dir = options.dir
  const limit = options.recordLimit ?? 0
  const segments: SegmentSummary[] = []
  const problems: SpoolProblem[] = []
  const records: InspectedRecord[] = []
  const partitions = new Map<
    string,
    { tenant: string; queue: string; partition: string; pending: number; oldest: number; newest: number }
  >()
  const totals = { segments: 0, pending: 0, replayed: 0, quarantined: 0, damaged: 0, torn: 0, bytes: 0 }

  for (const name of await segmentNames(dir)) {
    const file = path.join(dir, name)
    const buffer = await readIfPresent(file)
    if (!buffer) continue
    const state = name.endsWith('.open') ? 'open' : 'sealed'
    const scan = scanSegment(buffer, options.maxRecordBytes)
    const progressOffset = state === 'sealed' ? await readProgress(file) : 0
    let replayed = 0
    let oldest: number | null = null
    let newest: number | null = null
    for (const decoded of scan.records) {
      const { record } = decoded
      oldest = oldest === null ? record.acceptedAt : Math.min(oldest, record.acceptedAt)
      newest = newest === null ? record.acceptedAt : Math.max(newest, record.acceptedAt)
      if (decoded.offset < progressOffset) {
        replayed += 1
        continue
      }
      totals.pending += 1
      if (!matches(record, options)) continue
      const key = `${record.tenant}\u0000${record.queue}\u0000${record.partition}`
      const partition = partitions.get(key)
      if (partition) {
        partition.pending += 1
        partition.oldest = Math.min(partition.oldest, record.acceptedAt)
        partition.newest = Math.max(partition.newest, record.acceptedAt)
      } else {
        partitions.set(key, {
          tenant: record.tenant,
          queue: record.queue,
          partition: record.partition,
          pending: 1,
          oldest: record.acceptedAt,
          newest: record.acceptedAt,
        })
      }
      const inspected: InspectedRecord = { segment: name, offset: decoded.offset, state, record }
      if (records.length < limit) records.push(inspected)
      options.onRecord?.(inspected)
    }
    for (const range of scan.damaged) problems.push({ segment: name, kind: 'damaged', ...range })
    if (scan.tornTail) {
      const { offset, end } = scan.tornTail
      problems.push(
        state === 'open'
          ? {
              segment: name,
              kind: 'torn',
              offset,
              end,
              reason: `torn: unfinished last record at offset ${offset} (never acknowledged; truncated when the broker next starts)`,
            }
          : {
              segment: name,
              kind: 'damaged',
              offset,
              end,
              reason: `truncated: incomplete record at offset ${offset} of a sealed segment`,
            },
      )
    }
    const torn = state === 'open' && scan.tornTail !== undefined
    const damaged = scan.damaged.length + (scan.tornTail !== undefined && !torn ? 1 : 0)
    segments.push({
      segment: name,
      state,
      records: scan.records.length,
      bytes: buffer.length,
      oldest: iso(oldest),
      newest: iso(newest),
      replayed: state === 'sealed' ? replayed : null,
      progressOffset: state === 'sealed' && progressOffset > SEGMENT_MAGIC.length ? progressOffset : null,
      damaged,
      torn,
    })
    totals.replayed += replayed
    totals.damaged += damaged
    totals.torn += torn ? 1 : 0
    totals.bytes += buffer.length
  }

  const quarantined: InspectedQuarantineEntry[] = []
  for (const name of await quarantineNames(dir)) {
    const relative = `failed/${name}`
    const buffer = await readIfPresent(path.join(dir, 'failed', name))
    if (!buffer) continue
    const scan = scanSegment(buffer, MAX_QUARANTINE_ENTRY_BYTES, SEGMENT_MAGIC.length, isQuarantineEntry)
    let oldest: number | null = null
    let newest: number | null = null
    for (const decoded of scan.records) {
      const entry = decoded.record as unknown as QuarantineEntry
      const failedAt = Date.parse(entry.failedAt)
      if (Number.isFinite(failedAt)) {
        oldest = oldest === null ? failedAt : Math.min(oldest, failedAt)
        newest = newest === null ? failedAt : Math.max(newest, failedAt)
      }
      if (!options.failed) continue
      const record = entry.record ?? null
      if ((options.queue !== undefined || options.partition !== undefined) && (!record || !matches(record, options))) {
        continue
      }
      quarantined.push({
        file: relative,
        offset: decoded.offset,
        reason: entry.reason,
        failedAt: entry.failedAt,
        attempts: entry.attempts,
        sourceSegment: entry.sourceSegment,
        sourceOffset: entry.offset,
        record,
        bytes: typeof entry.bytes === 'string' ? Buffer.byteLength(entry.bytes, 'base64') : null,
      })
    }
    for (const range of scan.damaged) problems.push({ segment: relative, kind: 'damaged', ...range })
    if (scan.tornTail) {
      problems.push({
        segment: relative,
        kind: 'damaged',
        ...scan.tornTail,
        reason: `truncated: incomplete entry at offset ${scan.tornTail.offset} of a quarantine file`,
      })
    }
    const damaged = scan.damaged.length + (scan.tornTail ? 1 : 0)
    segments.push({
      segment: relative,
      state: 'quarantine',
      records: scan.records.length,
      bytes: buffer.length,
      oldest: iso(oldest),
      newest: iso(newest),
      replayed: null,
      progressOffset: null,
      damaged,
      torn: false,
    })
    totals.quarantined += scan.records.length
    totals.damaged += damaged
    totals.bytes += buffer.length
  }
  totals.segments = segments.length

  return {
    dir,
    owner: await readOwner(dir),
    segments,
    partitions: [...partitions.values()]
      .sort(
        (a, b) =>
          a.tenant.localeCompare(b.tenant) || a.queue.localeCompare(b.queue) || a.partition.localeCompare(b.partition),
      )
      .map((partition) => ({ ...partition, oldest: iso(partition.oldest)!, newest: iso(partition.newest)! })),
    records,
    quarantined,
    problems,
    totals,
  }
}

/** True when `dir` exists and is a directory. */
export async function isSpoolDirectory(dir: string): Promise<boolean> {
  return (await stat(dir).catch(() => undefined))?.isDirectory() === true
}
