/**
 * `queenctl analytics` against a real in-process broker: traffic is pushed, popped and acked, the
 * per-minute metrics job records it, and each subcommand shows it as a table, the broker answer as JSON,
 * and refuses bad input with the flag named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import AnalyticsOverview from '../../src/commands/analytics/overview.js'
import AnalyticsPostgres from '../../src/commands/analytics/postgres.js'
import AnalyticsQueueLag from '../../src/commands/analytics/queue-lag.js'
import AnalyticsQueueOps from '../../src/commands/analytics/queue-ops.js'
import AnalyticsQueueParked from '../../src/commands/analytics/queue-parked.js'
import AnalyticsRetention from '../../src/commands/analytics/retention.js'
import AnalyticsSystem from '../../src/commands/analytics/system.js'
import AnalyticsWorker from '../../src/commands/analytics/worker.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { ack, configure, pop, pushMany } from '../support/queen.js'
import { runCommand } from '../support/run-command.js'

const BUCKET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/
const WINDOW_NOTE = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z \.\. \d{4}-\d{2}-\d{2}T[\d:.]+Z, 1-minute buckets\n$/

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_analytics' })
  // ops.a: 3 pushed, 2 popped, 1 completed, 1 dead-lettered; ops.b: 2 pushed.
  await configure(broker, 'ops.a', { retryLimit: 0 })
  await pushMany(broker, 'ops.a', 'Default', 3)
  await pushMany(broker, 'ops.b', 'Default', 2)
  const popped = await pop(broker, 'ops.a', { batch: 2 })
  await ack(broker, popped.messages[0])
  await ack(broker, popped.messages[1], { status: 'failed', error: 'nope' })
  await broker.services.observability.metricsJob.runOnce()
})
afterAll(async () => {
  await broker.close()
})

const run = (command: Parameters<typeof runCommand>[0], id: string, ...argv: string[]) =>
  runCommand(command, id, ['--server', broker.url, ...argv])

/** The data rows of a table (header dropped), split on the two-space column gaps. */
const cells = (stdout: string) =>
  stdout
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => line.split(/\s{2,}/))

describe('queenctl analytics queue-ops', () => {
  it('prints the per-queue totals of the window, with the window on stderr', async () => {
    const result = await run(AnalyticsQueueOps, 'analytics:queue-ops', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe(
      'QUEUE  PUSH  POP  ACK  FAILED  DLQ\n' +
        'ops.a  3     2    1    1       1\n' +
        'ops.b  2     0    0    0       0\n',
    )
    expect(result.stderr).toMatch(WINDOW_NOTE)
  })

  it('prints one row per bucket with --series, filters by --queue, and the broker answer as JSON', async () => {
    const series = await run(AnalyticsQueueOps, 'analytics:queue-ops', '--queue', 'ops.b', '--series', '-o', 'table')
    expect(series.stdout.split('\n')[0]).toBe('TIME                  QUEUE  PUSH  POP  ACK  FAILED  DLQ')
    const rows = cells(series.stdout)
    expect(rows.map((row) => row[1])).toEqual(rows.map(() => 'ops.b'))
    expect(rows.every((row) => BUCKET.test(row[0]!))).toBe(true)
    expect(rows.reduce((sum, row) => sum + Number(row[2]), 0)).toBe(2)
    const json = await run(AnalyticsQueueOps, 'analytics:queue-ops', '--from', '2h ago', '-o', 'json')
    expect(json.code, json.stderr).toBe(0)
    const answer = JSON.parse(json.stdout)
    expect(answer.queues).toEqual([
      { queueName: 'ops.a', push: 3, pop: 2, ack: 1, failed: 1, dlq: 1 },
      { queueName: 'ops.b', push: 2, pop: 0, ack: 0, failed: 0, dlq: 0 },
    ])
    expect(Date.parse(answer.timeRange.to) - Date.parse(answer.timeRange.from)).toBeGreaterThanOrEqual(7_199_000)
  })

  it('names a bad time, and shows the broker refusing a window upside down', async () => {
    const bad = await run(AnalyticsQueueOps, 'analytics:queue-ops', '--from', 'last tuesday', '-o', 'table')
    expect(bad.code).toBe(1)
    expect(bad.stderr.split('\n')[0]).toBe('queenctl: --from: "last tuesday" is not a time')
    const reversed = await run(AnalyticsQueueOps, 'analytics:queue-ops', '--from', '1h ago', '--to', '2h ago')
    expect(reversed.code).toBe(1)
    expect(reversed.stdout).toBe('')
    expect(reversed.stderr).toBe('queenctl: from: must not be later than to\n')
  })
})

describe('queenctl analytics overview and queue-lag', () => {
  it('overview prints messages pushed per bucket over the last 24 hours', async () => {
    const result = await run(AnalyticsOverview, 'analytics:overview', '--interval', 'hour', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.split('\n')[0]).toBe('TIME                  MESSAGES')
    const total = cells(result.stdout).reduce((sum, row) => sum + Number(row[1]), 0)
    expect(total).toBe(5)
    expect(result.stderr).toMatch(/, hour buckets\n$/)
    const queue = await run(AnalyticsOverview, 'analytics:overview', '--queue', 'ops.b', '-o', 'json')
    const points = JSON.parse(queue.stdout).dataPoints as { messages: number }[]
    expect(points.reduce((sum, point) => sum + point.messages, 0)).toBe(2)
    const badInterval = await run(AnalyticsOverview, 'analytics:overview', '--interval', 'week', '-o', 'table')
    expect(badInterval.code).toBe(1)
    expect(badInterval.stderr).toContain('--interval')
  })

  it('queue-lag prints the pops of each queue with their lag', async () => {
    const result = await run(AnalyticsQueueLag, 'analytics:queue-lag', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.split('\n')[0]).toMatch(/^TIME\s+QUEUE\s+POPS\s+AVG LAG\s+MAX LAG$/)
    const rows = cells(result.stdout)
    expect(rows).toHaveLength(1)
    expect(rows[0]!.slice(1, 3)).toEqual(['ops.a', '2'])
    expect(rows[0]![3]).toMatch(/^\d+(ms|s)/)
    const none = await run(AnalyticsQueueLag, 'analytics:queue-lag', '--queue', 'ops.b', '-o', 'json')
    expect(JSON.parse(none.stdout)).toEqual([])
  })
})

describe('queenctl analytics queue-parked', () => {
  it('shows a long-poll pop parked on the replica', async () => {
    await configure(broker, 'ops.idle')
    const parked = http(broker, 'GET', '/api/v1/pop/queue/ops.idle?wait=true&timeout=3000')
    await expect.poll(() => broker.services.waiters.parked, { timeout: 2000 }).toBe(1)
    await broker.services.observability.metricsJob.runOnce()
    const result = await run(AnalyticsQueueParked, 'analytics:queue-parked', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.split('\n')[0]).toMatch(/^TIME\s+SERVER\s+PARKED POPS$/)
    const rows = cells(result.stdout)
    expect(rows.every((row) => row[1] === 'test-broker')).toBe(true)
    expect(Math.max(...rows.map((row) => Number(row[2])))).toBe(1)
    await pushMany(broker, 'ops.idle', 'Default', 1)
    expect((await parked).body.messages).toHaveLength(1)
  })
})

describe('queenctl analytics retention', () => {
  it('prints the totals per kind, the series with --series, and explains the kinds with -o wide', async () => {
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000)
    // Rows as the retention cycle writes them (one per queue, kind and cycle).
    await broker.db.query(
      `INSERT INTO queen.retention_history (bucket, queue_name, kind, deleted) VALUES
       ($1, 'ops.a', 'retention', 5), ($1, 'ops.b', 'retention', 2), ($1, 'ops.a', 'completed', 4)`,
      [minute],
    )
    const totals = await run(AnalyticsRetention, 'analytics:retention', '-o', 'table')
    expect(totals).toMatchObject({
      code: 0,
      stdout:
        'KIND                DELETED\n' +
        'retention           7\n' +
        'completedRetention  4\n' +
        'eviction            0\n' +
        'partitions          0\n',
    })
    const wide = await run(AnalyticsRetention, 'analytics:retention', '-o', 'wide', '--no-headers')
    expect(wide.stdout.split('\n')[0]).toBe('retention           7  messages older than retentionSeconds')
    const series = await run(AnalyticsRetention, 'analytics:retention', '--series', '-o', 'table')
    const bucket = minute.toISOString().replace('.000Z', 'Z')
    expect(cells(series.stdout)).toEqual([
      [bucket, 'completed', '4'],
      [bucket, 'retention', '7'],
    ])
  })
})

describe('queenctl analytics system and worker', () => {
  it('system prints one row per replica and bucket; wide adds the host and pid', async () => {
    const result = await run(AnalyticsSystem, 'analytics:system', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.split('\n')[0]).toMatch(
      /^TIME\s+SERVER\s+CPU\s+RSS\s+LOOP LAG P99\s+POOL\s+WAITING\s+REQUESTS$/,
    )
    const row = cells(result.stdout)[0]!
    expect(row[1]).toBe('test-broker')
    expect(row[2]).toMatch(/^\d+\.\d%$/)
    expect(row[3]).toMatch(/MiB$/)
    const wide = await run(AnalyticsSystem, 'analytics:system', '-o', 'wide')
    expect(wide.stdout.split('\n')[0]).toMatch(/REQUESTS\s+HOST\s+PID\s+HEAP\s+PARKED POPS$/)
    expect(cells(wide.stdout)[0]).toContain(String(process.pid))
  })

  it('worker answers the same series and filters by --worker-id', async () => {
    const mine = await run(AnalyticsWorker, 'analytics:worker', '--worker-id', 'test-broker', '-o', 'json')
    expect(mine.code, mine.stderr).toBe(0)
    const series = JSON.parse(mine.stdout).series as { serverId: string }[]
    expect(series.length).toBeGreaterThanOrEqual(1)
    expect(series.every((point) => point.serverId === 'test-broker')).toBe(true)
    const other = await run(AnalyticsWorker, 'analytics:worker', '--worker-id', 'queen-9', '-o', 'table')
    expect(other.stdout).toBe('TIME  SERVER  CPU  RSS  LOOP LAG P99  POOL  WAITING  REQUESTS\n')
  })
})

describe('queenctl analytics postgres', () => {
  it("summarises the statistics of the broker's database and prints every section as JSON", async () => {
    const result = await run(AnalyticsPostgres, 'analytics:postgres', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain(`database: ${broker.database}\n`)
    expect(result.stdout).toMatch(/\ncacheHitRatio: [\d.]+%\n/)
    expect(result.stdout).toMatch(/\nmaxConnections: \d+\n/)
    expect(result.stdout).toContain('\nautovacuum: on\n')
    expect(result.stdout).toMatch(/\nlargestTables:\n {2}- \w+ [\d.]+ \w+ \(~\d+ rows\)\n/)
    expect(result.stdout).not.toContain('unavailable')
    const json = await run(AnalyticsPostgres, 'analytics:postgres', '-o', 'json')
    const stats = JSON.parse(json.stdout)
    expect(stats.tableCache.map((row: { table: string }) => row.table)).toContain('messages')
  })
})
