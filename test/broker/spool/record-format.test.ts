import { describe, expect, it } from 'vitest'
import { encodeRecords, scanSegment, SEGMENT_MAGIC, type SpoolRecord } from '../../../src/broker/spool/record-format.js'

const MAX = 1024 * 1024

function record(n: number): SpoolRecord {
  return {
    v: 1,
    tenant: '',
    queue: 'q',
    partition: `p${n % 3}`,
    transactionId: `tx-${n}`,
    traceId: null,
    producerSub: null,
    acceptedAt: 1_700_000_000_000 + n,
    requestId: `r${n}`,
    encrypted: false,
    payload: { n, text: 'x'.repeat(n % 50) },
  }
}

function segment(count: number): Buffer {
  return Buffer.concat([SEGMENT_MAGIC, encodeRecords(Array.from({ length: count }, (_, n) => record(n)))])
}

const ids = (scan: ReturnType<typeof scanSegment>) => scan.records.map((decoded) => decoded.record.transactionId)

describe('spool record format', () => {
  it('round-trips records framed with length and CRC-32', () => {
    const scan = scanSegment(segment(20), MAX)
    expect(scan.magicOk).toBe(true)
    expect(scan.damaged).toEqual([])
    expect(scan.tornTail).toBeUndefined()
    expect(scan.records.map((decoded) => decoded.record)).toEqual(Array.from({ length: 20 }, (_, n) => record(n)))
  })

  it('resumes from a replay progress offset', () => {
    const full = scanSegment(segment(10), MAX)
    const resumed = scanSegment(segment(10), MAX, full.records[4]!.end)
    expect(ids(resumed)).toEqual(['tx-5', 'tx-6', 'tx-7', 'tx-8', 'tx-9'])
  })

  it('detects a flipped bit by its checksum, reports the damage, and still reads every record after it', () => {
    const buffer = segment(30)
    const full = scanSegment(buffer, MAX)
    const victim = full.records[10]!
    // Flip one bit inside the JSON of record 10.
    const at = victim.offset + 8 + 5
    buffer[at] = buffer[at]! ^ 0x10
    const scan = scanSegment(buffer, MAX)
    expect(scan.damaged).toHaveLength(1)
    expect(scan.damaged[0]).toMatchObject({ offset: victim.offset, end: victim.end })
    expect(scan.damaged[0]!.reason).toBe(`corrupt: crc mismatch at offset ${victim.offset}`)
    expect(ids(scan)).toEqual(Array.from({ length: 30 }, (_, n) => `tx-${n}`).filter((id) => id !== 'tx-10'))
  })

  it('reads every record before a truncation and reports the cut record as a torn tail', () => {
    const buffer = segment(12)
    const full = scanSegment(buffer, MAX)
    const cut = full.records[7]!.offset + 11
    const scan = scanSegment(buffer.subarray(0, cut), MAX)
    expect(ids(scan)).toEqual(Array.from({ length: 7 }, (_, n) => `tx-${n}`))
    expect(scan.tornTail).toEqual({ offset: full.records[7]!.offset, end: cut })
    expect(scan.damaged).toEqual([])
  })

  it('reports garbage appended after the last record as damage, not as records', () => {
    const buffer = Buffer.concat([segment(5), Buffer.from('garbage!'.repeat(12))])
    const scan = scanSegment(buffer, MAX)
    expect(ids(scan)).toHaveLength(5)
    expect(scan.damaged.length + (scan.tornTail ? 1 : 0)).toBeGreaterThan(0)
  })

  it('survives a zeroed 4 KiB block in the middle of a segment', () => {
    const buffer = segment(400)
    const start = Math.floor(buffer.length / 2)
    buffer.fill(0, start, start + 4096)
    const scan = scanSegment(buffer, MAX)
    const full = scanSegment(segment(400), MAX)
    const intact = full.records.filter((decoded) => decoded.end <= start || decoded.offset >= start + 4096)
    expect(scan.damaged).toHaveLength(1)
    // Every intact record is still read.
    expect(ids(scan)).toEqual(intact.map((decoded) => decoded.record.transactionId))
  })

  it('reports an overwritten magic and still reads the records behind it', () => {
    const buffer = segment(6)
    buffer.write('XXXXXXXX', 0, 'ascii')
    const scan = scanSegment(buffer, MAX)
    expect(scan.magicOk).toBe(false)
    expect(scan.damaged[0]!.reason).toBe('corrupt: segment magic missing')
    expect(ids(scan)).toHaveLength(6)
  })
})
