import { mkdtemp, readdir, readFile, rm, writeFile, appendFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { scanSegment, SEGMENT_MAGIC, type SpoolRecord } from '../../../src/broker/spool/record-format.js'
import { SpoolReplayer } from '../../../src/broker/spool/spool-replayer.js'
import { Spool, SpoolUnavailableError } from '../../../src/broker/spool/spool.js'
import { SpoolLockedError } from '../../../src/broker/spool/spool-directory.js'
import { startTestBroker, type TestBroker } from '../../support/broker.js'

const log = pino({ enabled: false })
const MAX_RECORD = 1024 * 1024
let broker: TestBroker
const dirs: string[] = []
const spools: Spool[] = []

beforeAll(async () => {
  broker = await startTestBroker({ label: 'spool' })
})
afterAll(async () => {
  await broker.close()
})
afterEach(async () => {
  for (const spool of spools.splice(0)) await spool.close().catch(() => undefined)
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp('/tmp/queenctl-spool-test-')
  dirs.push(dir)
  return dir
}

async function openSpool(
  dir: string,
  overrides: Partial<{ maxBytes: number; eventsPerFile: number; flushMs: number }> = {},
): Promise<Spool> {
  const spool = await Spool.open(
    {
      dir,
      serverId: 'test',
      eventsPerFile: overrides.eventsPerFile ?? 10_000,
      flushMs: overrides.flushMs ?? 50,
      maxBytes: overrides.maxBytes ?? 0,
      maxRecordBytes: MAX_RECORD,
    },
    log,
  )
  spools.push(spool)
  return spool
}

function records(queue: string, partition: string, from: number, count: number): SpoolRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    v: 1,
    tenant: '',
    queue,
    partition,
    transactionId: `${queue}-${from + index}`,
    traceId: null,
    producerSub: null,
    acceptedAt: Date.now(),
    requestId: 'test',
    encrypted: false,
    payload: { n: from + index },
  }))
}

function replayer(spool: Spool, options: { attempts?: number } = {}): SpoolReplayer {
  return new SpoolReplayer(
    spool,
    (tenant, batch) => broker.services.push.replay(tenant, batch),
    { maxBatch: 7, canReplay: () => true, poisonAttempts: options.attempts ?? 2, poisonBackoffMs: 5 },
    log,
  )
}

async function stored(queue: string): Promise<number[]> {
  const rows = await broker.db.query(
    `SELECT (m.payload->>'n')::int AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id
     JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 ORDER BY p.name, m.position`,
    [queue],
  )
  return rows.rows.map((row) => row.n)
}

describe('spool', () => {
  it('stores appended records durably and replays them in order, then deletes the segments', async () => {
    const dir = await tempDir()
    const spool = await openSpool(dir)
    await spool.append(records('replay-order', 'p', 0, 10))
    await spool.append(records('replay-order', 'p', 10, 15))
    expect(spool.hasPending('', 'replay-order', 'p')).toBe(true)
    expect(spool.size.records).toBe(25)
    const files = await readdir(dir)
    expect(files.filter((name) => name.endsWith('.open'))).toHaveLength(1)
    await replayer(spool).runOnce()
    expect(await stored('replay-order')).toEqual(Array.from({ length: 25 }, (_, n) => n))
    expect(spool.hasPending('', 'replay-order', 'p')).toBe(false)
    expect((await readdir(dir)).filter((name) => name.endsWith('.seg') || name.endsWith('.open'))).toEqual([])
    expect(spool.counters).toMatchObject({ written: 25, replayed: 25 })
  })

  it('replays idempotently: records replayed twice (a crash between commit and progress) are stored once', async () => {
    const dir = await tempDir()
    const spool = await openSpool(dir)
    const batch = records('replay-twice', 'p', 0, 5)
    await broker.services.push.replay('', batch)
    await spool.append(batch)
    await replayer(spool).runOnce()
    expect(await stored('replay-twice')).toEqual([0, 1, 2, 3, 4])
  })

  it('recovers an unfinished segment after a crash: truncates the torn tail and replays the rest', async () => {
    const dir = await tempDir()
    // A crashed process runs no idle sealing: this spool's would otherwise seal the segment, torn tail
    // included, while the test is still writing it.
    const first = await openSpool(dir, { flushMs: 600_000 })
    await first.append(records('recover', 'p', 0, 3))
    // A crash: the process dies without sealing, mid-way through writing a further record.
    const open = (await readdir(dir)).find((name) => name.endsWith('.open'))!
    await appendFile(path.join(dir, open), Buffer.from([0, 0, 0, 40, 1, 2, 3, 4, 123, 34]))
    spools.splice(spools.indexOf(first), 1)
    const second = await openSpool(dir)
    expect(second.size.records).toBe(3)
    const sealed = (await readdir(dir)).filter((name) => name.endsWith('.seg'))
    expect(sealed).toHaveLength(1)
    const scan = scanSegment(await readFile(path.join(dir, sealed[0]!)), MAX_RECORD)
    expect(scan.tornTail).toBeUndefined()
    await replayer(second).runOnce()
    expect(await stored('recover')).toEqual([0, 1, 2])
  })

  it('quarantines a record PostgreSQL refuses for good and replays the records behind it', async () => {
    const dir = await tempDir()
    const spool = await openSpool(dir)
    const batch = records('poison', 'p', 0, 20)
    // jsonb refuses \u0000: a record the edge would have refused, written straight to the spool.
    batch[5]!.payload = { bad: 'a\u0000b' }
    await spool.append(batch)
    await replayer(spool).runOnce()
    expect(await stored('poison')).toEqual(Array.from({ length: 20 }, (_, n) => n).filter((n) => n !== 5))
    const failed = await readdir(path.join(dir, 'failed'))
    expect(failed).toHaveLength(1)
    const entries = scanSegment(await readFile(path.join(dir, 'failed', failed[0]!)), MAX_RECORD, 8, () => true)
    expect(entries.records).toHaveLength(1)
    const entry = entries.records[0]!.record as unknown as { reason: string; attempts: number; record: SpoolRecord }
    expect(entry.attempts).toBe(2)
    expect(entry.reason).toMatch(/^replay failed: /)
    expect(entry.record.transactionId).toBe('poison-5')
    expect(spool.counters.quarantined).toBe(1)
    expect(spool.size.records).toBe(0)
  })

  it('quarantines damaged bytes and replays every intact record of a corrupted segment', async () => {
    const dir = await tempDir()
    const spool = await openSpool(dir)
    await spool.append(records('corrupt', 'p', 0, 30))
    await spool.sealActive()
    const segmentFile = path.join(
      dir,
      (await readdir(dir)).find((name) => name.endsWith('.seg'))!,
    )
    const buffer = await readFile(segmentFile)
    const victim = scanSegment(buffer, MAX_RECORD).records[12]!
    buffer[victim.offset + 12] = buffer[victim.offset + 12]! ^ 0x01
    await writeFile(segmentFile, buffer)
    await replayer(spool).runOnce()
    expect(await stored('corrupt')).toEqual(Array.from({ length: 30 }, (_, n) => n).filter((n) => n !== 12))
    expect(spool.counters.corrupt).toBe(1)
    const failed = await readdir(path.join(dir, 'failed'))
    const entries = scanSegment(await readFile(path.join(dir, 'failed', failed[0]!)), MAX_RECORD, 8, () => true)
    expect((entries.records[0]!.record as unknown as { reason: string }).reason).toMatch(
      /^corrupt: crc mismatch at offset \d+ of /,
    )
  })

  it('refuses records when the disk is full, leaving no torn bytes and nothing answered as stored', async () => {
    const dir = await tempDir()
    const spool = await openSpool(dir)
    await spool.append(records('full', 'p', 0, 2))
    spool.hooks.failAfterBytes = 300
    await expect(spool.append(records('full', 'p', 2, 5))).rejects.toThrow(SpoolUnavailableError)
    await expect(spool.append(records('full', 'p', 2, 5))).rejects.toThrow('spool unavailable: no space left on device')
    expect(spool.state).toBe('full')
    expect(spool.size.records).toBe(2)
    // The file reads cleanly to its end: the failed write was truncated away.
    const open = (await readdir(dir)).find((name) => name.endsWith('.open') || name.endsWith('.seg'))!
    const scan = scanSegment(await readFile(path.join(dir, open)), MAX_RECORD)
    expect(scan.records).toHaveLength(2)
    expect(scan.tornTail).toBeUndefined()
    expect(scan.damaged).toEqual([])
    // Space comes back: the next push is accepted and everything accepted is replayed.
    spool.hooks.failAfterBytes = undefined
    await spool.append(records('full', 'p', 2, 1))
    expect(spool.state).toBe('ok')
    await replayer(spool).runOnce()
    expect(await stored('full')).toEqual([0, 1, 2])
  })

  it('refuses to grow past QUEEN_SPOOL_MAX_BYTES', async () => {
    const dir = await tempDir()
    const spool = await openSpool(dir, { maxBytes: 500 })
    await spool.append(records('capped-spool', 'p', 0, 2))
    await expect(spool.append(records('capped-spool', 'p', 2, 10))).rejects.toThrow(/QUEEN_SPOOL_MAX_BYTES=500/)
    expect(spool.size.records).toBe(2)
  })

  it('falls back to the OS temp directory when the configured one cannot be created', async () => {
    const blocker = path.join(await tempDir(), 'a-file')
    await writeFile(blocker, 'not a directory')
    const spool = await openSpool(path.join(blocker, 'spool'))
    expect(spool.state).toBe('fallback')
    expect(spool.dir).toMatch(/queen-spool-test$/)
    await spool.append(records('fallback', 'p', 0, 1))
    expect(spool.size.records).toBe(1)
    await replayer(spool).runOnce()
    await rm(spool.dir!, { recursive: true, force: true })
  })

  it('refuses a directory locked by another live broker', async () => {
    const dir = await tempDir()
    await writeFile(
      path.join(dir, 'spool.lock'),
      JSON.stringify({ pid: process.ppid, serverId: 'other', host: hostname() }),
    )
    await expect(openSpool(dir)).rejects.toThrow(SpoolLockedError)
    await expect(openSpool(dir)).rejects.toThrow(/FILE_BUFFER_DIR=.* is locked by a running broker/)
  })

  it('rotates segments at FILE_BUFFER_EVENTS_PER_FILE and replays across them in order', async () => {
    const dir = await tempDir()
    const spool = await openSpool(dir, { eventsPerFile: 4 })
    for (let index = 0; index < 5; index++) await spool.append(records('rotate', 'p', index * 3, 3))
    const segments = (await readdir(dir)).filter((name) => name.endsWith('.seg'))
    expect(segments.length).toBeGreaterThanOrEqual(2)
    for (const name of segments)
      expect((await readFile(path.join(dir, name))).subarray(0, 8).equals(SEGMENT_MAGIC)).toBe(true)
    await replayer(spool).runOnce()
    expect(await stored('rotate')).toEqual(Array.from({ length: 15 }, (_, n) => n))
  })
})
