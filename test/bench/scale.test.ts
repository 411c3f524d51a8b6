import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrokerProcess } from '../../bench/broker-process.js'
import { renderLineChart } from '../../bench/charts.js'
import { OursAdapter } from '../../bench/ours.js'
import type { PgConnection } from '../../bench/postgres.js'
import type { ScalePoint } from '../../bench/scale-run.js'
import { scaleTargets } from '../../bench/scale-report.js'
import { partitionsPerPop, scaleSizes } from '../../bench/scale-series.js'
import { SEED_PRODUCER } from '../../bench/seed.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { databaseConnection } from '../support/database.js'

function point(series: ScalePoint['series'], x: number, values: ScalePoint['values'], lost = 0): ScalePoint {
  return { series, adapter: 'ours', x, values, lost, duplicates: 0, errors: [] }
}

function target(points: ScalePoint[], starts: string) {
  const found = scaleTargets(points, scaleSizes(true)).find((t) => t.target.startsWith(starts))
  if (!found) throw new Error(`no target starting with ${starts}`)
  return found
}

describe('bench --scale targets', () => {
  it('passes the drain target at exactly half the 16-partition rate and fails just under it', () => {
    const at = (rate: number) =>
      target([point('partitions', 16, { rate: 1000 }), point('partitions', 10_000, { rate })], 'drain at')
    expect(at(500).pass).toBe(true)
    expect(at(499).pass).toBe(false)
    expect(at(499).measured).toBe('499 vs 1,000 msg/s (50 %)')
  })

  it('fails the fan-out target when the widest point did not deliver everything, however cheap it looked', () => {
    const one = point('fanout', 1, { perGroup: 1000, cpuUsPerDelivery: 400 })
    const stalled = point('fanout', 64, { perGroup: 15, cpuUsPerDelivery: 100 }, 300)
    const check = target([one, stalled], 'fan-out')
    expect(check.pass).toBe(false)
    expect(check.measured).toContain('300 messages not received in time')
    expect(target([one, { ...stalled, lost: 0 }], 'fan-out').pass).toBe(true)
  })

  it('fails the stats target when a 1 % refresh costs more than a tenth of a full one', () => {
    const full = point('stats', 10_000, { refreshMs: 1000 })
    expect(target([full, point('stats', 100, { refreshMs: 100 })], 'stats refresh').pass).toBe(true)
    expect(target([full, point('stats', 100, { refreshMs: 420 })], 'stats refresh').pass).toBe(false)
  })

  it('counts a late message as a correctness failure', () => {
    const check = target([point('partitions', 16, { rate: 1 }, 2)], 'every message')
    expect(check).toMatchObject({ pass: false, correctness: true })
  })
})

describe('bench --scale drain sizing', () => {
  it('claims enough partitions per pop to fill a batch of 100 at the stored density, 1 to 100', () => {
    expect(partitionsPerPop(16, 10_000)).toBe(1)
    expect(partitionsPerPop(1_000, 10_000)).toBe(10)
    expect(partitionsPerPop(100_000, 200_000)).toBe(50)
    expect(partitionsPerPop(10_000, 10_000)).toBe(100)
  })
})

describe('bench --scale charts', () => {
  it('renders a line chart to an SVG document with its title, axis titles and legend', async () => {
    const svg = await renderLineChart({
      title: 'Drain rate',
      xTitle: 'partitions',
      yTitle: 'messages/s',
      xLog: true,
      rows: [
        { x: 10, y: 5000, line: 'ours' },
        { x: 10_000, y: 1000, line: 'ours' },
        { x: 10, y: 20_000, line: 'ceiling' },
      ],
    })
    expect(svg.startsWith('<svg')).toBe(true)
    for (const text of ['Drain rate', 'partitions', 'messages/s', 'ours', 'ceiling']) expect(svg).toContain(`>${text}<`)
  })
})

describe('bench --scale seeding of our broker', () => {
  let broker: TestBroker
  let adapter: OursAdapter

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'bench_seed' })
    // Only the URL of the process handle is used: the broker runs in this process.
    const handle: BrokerProcess = {
      pid: process.pid,
      url: broker.url,
      logTail: () => [],
      alive: () => true,
      stop: async () => {},
    }
    adapter = new OursAdapter(handle, 'test', databaseConnection(broker.database) as PgConnection)
  })

  afterAll(async () => {
    await adapter?.stop()
    await broker?.close()
  })

  it('stores what pushes store: ordered positions per partition, counters, dedup, and pops that read them', async () => {
    const name = 'seeded'
    const queue = await adapter.openQueue({ name, partitions: 5, groups: [] })
    await queue.seedBacklog?.(0, 250)

    const partitions = await broker.db.query<{ name: string; next_position: string; message_count: string }>(
      `SELECT p.name, p.next_position, p.message_count FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
       WHERE q.name = $1 ORDER BY p.name`,
      [name],
    )
    expect(partitions.rows.map((r) => [r.name, Number(r.next_position), Number(r.message_count)])).toEqual(
      ['p0', 'p1', 'p2', 'p3', 'p4'].map((p) => [p, 51, 50]),
    )
    const p1 = await broker.db.query<{ position: string; transaction_id: string }>(
      `SELECT m.position, m.transaction_id FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = 'p1' ORDER BY m.position LIMIT 3`,
      [name],
    )
    expect(p1.rows.map((r) => [Number(r.position), r.transaction_id])).toEqual([
      [1, `${name}.${SEED_PRODUCER}.1`],
      [2, `${name}.${SEED_PRODUCER}.6`],
      [3, `${name}.${SEED_PRODUCER}.11`],
    ])

    // A push after the seed continues the positions, and a seeded transaction id is a duplicate.
    const pushed = await http(broker, 'POST', '/api/v1/push', {
      items: [
        { queue: name, partition: 'p1', payload: { n: 1 }, transactionId: 'after-seed' },
        { queue: name, partition: 'p1', payload: { n: 2 }, transactionId: `${name}.${SEED_PRODUCER}.6` },
      ],
    })
    expect(pushed.body.map((r: { status: string }) => r.status)).toEqual(['queued', 'duplicate'])

    const popped = await http(broker, 'GET', `/api/v1/pop/queue/${name}/partition/p1?batch=100&autoAck=true`)
    const messages = popped.body.messages as { transactionId: string; data: { producer: number; seq: number } }[]
    expect(messages).toHaveLength(51)
    expect(messages[0]?.data).toMatchObject({ producer: SEED_PRODUCER, seq: 1 })
    expect(messages[50]?.transactionId).toBe('after-seed')
  })
})
