/**
 * The rows and columns of each dashboard table, built from the route answers: queues with their rates,
 * lag and DLQ counts; a queue's partitions; consumer groups; DLQ counts per queue and group; replicas;
 * mesh peers. Pure, so the panes are plain renderers and the tests need no terminal.
 */
import { EMPTY_CELL, formatAge, formatBytes, formatCount, formatDuration } from '../format.js'
import type { OpRates } from './ops-history.js'
import type { TableColumn } from './table-model.js'
import type { TopData } from './top-data.js'
import type { ConsumerGroupRow, DlqMessage, MeshPeer, QueueDetailAnswer, SystemMetricsPoint } from './wire.js'

/** A rate per second: one decimal below 10, whole numbers above; `-` before there is one. */
export function formatRate(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return EMPTY_CELL
  if (value < 10) return value.toFixed(1)
  return formatCount(Math.round(value))
}

/** Seconds as a duration (`3m20s`, `0s`), `-` for none. */
export function formatSeconds(seconds: number | undefined | null): string {
  if (seconds === undefined || seconds === null) return EMPTY_CELL
  return seconds < 1 ? '0s' : formatDuration(seconds * 1000)
}

const text = <Row>(
  header: string,
  width: number,
  value: (row: Row) => string,
  options: { flex?: boolean } = {},
): TableColumn<Row> => ({ header, width, align: 'left', cell: value, sortValue: value, flex: options.flex })

const number = <Row>(
  header: string,
  width: number,
  value: (row: Row) => number | undefined,
  render: (value: number | undefined) => string = (v) => (v === undefined ? EMPTY_CELL : formatCount(v)),
): TableColumn<Row> => ({ header, width, align: 'right', cell: (row) => render(value(row)), sortValue: value })

// ---- Queues -------------------------------------------------------------------------------------------

/** One row of the Queues pane. */
export interface QueueRow {
  name: string
  partitions: number
  pending: number
  processing: number
  rates: OpRates | undefined
  /** Largest time lag of the groups on the queue, seconds; undefined when no group reads it (yet). */
  lagSeconds: number | undefined
  /** DLQ entries among the newest the broker returned (a lower bound when `dlqPartial`). */
  dlq: number | undefined
  dlqPartial: boolean
}

export const QUEUE_COLUMNS: TableColumn<QueueRow>[] = [
  text('QUEUE', 10, (row) => row.name, { flex: true }),
  number('PARTS', 5, (row) => row.partitions),
  number('PENDING', 9, (row) => row.pending),
  number('PROCESSING', 10, (row) => row.processing),
  number('PUSH/s', 7, (row) => row.rates?.push, formatRate),
  number('POP/s', 7, (row) => row.rates?.pop, formatRate),
  number('LAG', 6, (row) => row.lagSeconds, formatSeconds),
  {
    ...number('DLQ', 6, (row) => row.dlq),
    cell: (row) => (row.dlq === undefined ? EMPTY_CELL : `${formatCount(row.dlq)}${row.dlqPartial ? '+' : ''}`),
  },
]

/** Per queue: the largest time lag of its groups, seconds. */
function lagByQueue(groups: readonly ConsumerGroupRow[] | undefined): Map<string, number> {
  const lag = new Map<string, number>()
  for (const group of groups ?? []) lag.set(group.queueName, Math.max(lag.get(group.queueName) ?? 0, group.maxTimeLag))
  return lag
}

/** DLQ counts per key among the sampled entries. */
function countBy(messages: readonly DlqMessage[], key: (message: DlqMessage) => string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const message of messages) counts.set(key(message), (counts.get(key(message)) ?? 0) + 1)
  return counts
}

/** The rows of the Queues pane (unsorted, unfiltered). */
export function queueRows(data: TopData): QueueRow[] {
  const queues = data.routes.queues?.data?.queues ?? []
  const lag = lagByQueue(data.routes.groups?.data)
  const dlq = data.routes.dlq?.data
  const dlqCounts = dlq ? countBy(dlq.messages, (message) => message.queue) : undefined
  const dlqPartial = dlq !== undefined && dlq.total > dlq.messages.length
  return queues.map((queue) => ({
    name: queue.name,
    partitions: queue.partitions,
    pending: queue.messages.pending,
    processing: queue.messages.processing,
    rates: data.total === undefined ? undefined : (data.rates.get(queue.name) ?? zeroRates),
    lagSeconds: lag.get(queue.name),
    dlq: dlqCounts ? (dlqCounts.get(queue.name) ?? 0) : undefined,
    dlqPartial,
  }))
}

const zeroRates: OpRates = { push: 0, pop: 0, ack: 0, failed: 0, dlq: 0 }

// ---- Partitions (drill-in) ----------------------------------------------------------------------------

/** One row of a queue's partitions. */
export type PartitionRow = QueueDetailAnswer['partitions'][number]

export const partitionColumns = (now: number): TableColumn<PartitionRow>[] => [
  text('PARTITION', 10, (row) => row.name, { flex: true }),
  number('PENDING', 9, (row) => row.stats.pending),
  number('PROCESSING', 10, (row) => row.stats.processing),
  number('COMPLETED', 10, (row) => row.stats.completed),
  number('FAILED', 7, (row) => row.stats.failed),
  number('DLQ', 6, (row) => row.stats.deadLetter),
  {
    ...text('NEWEST', 14, (row) => formatAge(row.newestMessage, now)),
    sortValue: (row) => (row.newestMessage ? Date.parse(row.newestMessage) : undefined),
  },
]

/** The partitions of the drilled queue, or undefined until its answer is there. */
export function partitionRows(data: TopData, queue: string): PartitionRow[] | undefined {
  const detail = data.routes.partitions?.data
  return detail && detail.name === queue ? detail.partitions : undefined
}

// ---- Groups -------------------------------------------------------------------------------------------

export const GROUP_COLUMNS: TableColumn<ConsumerGroupRow>[] = [
  text('GROUP', 10, (row) => row.name, { flex: true }),
  text('QUEUE', 16, (row) => row.queueName),
  number('LAG', 10, (row) => row.totalLag),
  number('TIME LAG', 9, (row) => row.maxTimeLag, formatSeconds),
  text('STATE', 8, (row) => row.state),
]

/** The rows of the Groups pane. */
export function groupRows(data: TopData): ConsumerGroupRow[] {
  return data.routes.groups?.data ?? []
}

// ---- DLQ ----------------------------------------------------------------------------------------------

/** DLQ entries of one (queue, group). */
export interface DlqRow {
  queue: string
  group: string
  count: number
  lastFailedAt: string
}

export const dlqColumns = (now: number): TableColumn<DlqRow>[] => [
  text('QUEUE', 10, (row) => row.queue, { flex: true }),
  text('GROUP', 18, (row) => row.group),
  number('COUNT', 8, (row) => row.count),
  {
    ...text('LAST FAILURE', 16, (row) => formatAge(row.lastFailedAt, now)),
    sortValue: (row) => Date.parse(row.lastFailedAt),
  },
]

/** The DLQ pane: counts per (queue, group), the top errors, the exact total and how many were read. */
export interface DlqSummary {
  rows: DlqRow[]
  topErrors: { error: string; count: number }[]
  total: number
  sampled: number
}

/** Most frequent error texts shown. */
const TOP_ERRORS = 5

/** The DLQ summary, or undefined until the DLQ route answered. */
export function dlqSummary(data: TopData): DlqSummary | undefined {
  const dlq = data.routes.dlq?.data
  if (!dlq) return undefined
  const rows = new Map<string, DlqRow>()
  for (const message of dlq.messages) {
    const group = message.consumerGroup ?? EMPTY_CELL
    const key = `${message.queue}\u0000${group}`
    const row = rows.get(key)
    if (!row) rows.set(key, { queue: message.queue, group, count: 1, lastFailedAt: message.failedAt })
    else {
      row.count += 1
      if (message.failedAt > row.lastFailedAt) row.lastFailedAt = message.failedAt
    }
  }
  const errors = countBy(dlq.messages, (message) => message.errorMessage ?? '(no error message)')
  const topErrors = [...errors.entries()]
    .map(([error, count]) => ({ error, count }))
    .sort((a, b) => b.count - a.count || a.error.localeCompare(b.error))
    .slice(0, TOP_ERRORS)
  return { rows: [...rows.values()], topErrors, total: dlq.total, sampled: dlq.messages.length }
}

// ---- System -------------------------------------------------------------------------------------------

/** One replica's latest minute. */
export interface ReplicaRow {
  serverId: string
  cpuPercent: number
  rssBytes: number
  loopLagMs: number
  poolTotal: number
  poolIdle: number
  poolWaiting: number
  /** Requests per second over the newest closed minute (the current one while it is the only one). */
  requestsPerSecond: number
  parkedPops: number
}

export const REPLICA_COLUMNS: TableColumn<ReplicaRow>[] = [
  text('REPLICA', 10, (row) => row.serverId, { flex: true }),
  number(
    'CPU%',
    6,
    (row) => row.cpuPercent,
    (v) => (v === undefined ? EMPTY_CELL : v.toFixed(1)),
  ),
  number('RSS', 10, (row) => row.rssBytes, formatBytes),
  number(
    'LOOP p99',
    8,
    (row) => row.loopLagMs,
    (v) => (v === undefined ? EMPTY_CELL : `${v.toFixed(1)}ms`),
  ),
  {
    ...number('POOL t/i/w', 10, (row) => row.poolTotal),
    cell: (row) => `${row.poolTotal}/${row.poolIdle}/${row.poolWaiting}`,
  },
  number('REQ/s', 7, (row) => row.requestsPerSecond, formatRate),
  number('PARKED', 6, (row) => row.parkedPops),
]

/** Per replica, its newest minute of GET /api/v1/analytics/system-metrics. */
export function replicaRows(data: TopData, now: number): ReplicaRow[] {
  const answer = data.routes.systemMetrics?.data
  if (!answer) return []
  const bySeries = new Map<string, SystemMetricsPoint[]>()
  for (const point of answer.series) bySeries.set(point.serverId, [...(bySeries.get(point.serverId) ?? []), point])
  const currentMinute = Math.floor(now / 60_000) * 60_000
  const bucketSeconds = Math.max(1, answer.bucketMinutes) * 60
  return [...bySeries.entries()].map(([serverId, points]) => {
    const sorted = [...points].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))
    const latest = sorted[sorted.length - 1]!
    const closed = [...sorted].reverse().find((point) => Date.parse(point.timestamp) < currentMinute) ?? latest
    return {
      serverId,
      cpuPercent: latest.cpuUserPercent + latest.cpuSystemPercent,
      rssBytes: latest.rssBytes,
      loopLagMs: latest.eventLoopLagP99Ms,
      poolTotal: latest.poolTotal,
      poolIdle: latest.poolIdle,
      poolWaiting: latest.poolWaiting,
      requestsPerSecond: closed.requests / bucketSeconds,
      parkedPops: latest.parkedPops,
    }
  })
}

// ---- Mesh ---------------------------------------------------------------------------------------------

export const meshColumns = (now: number): TableColumn<MeshPeer>[] => [
  text('PEER', 10, (row) => row.address, { flex: true }),
  text('SERVER ID', 12, (row) => row.serverId ?? EMPTY_CELL),
  text('STATE', 10, (row) => row.state),
  text('SINCE', 8, (row) => (row.since ? formatDuration(now - Date.parse(row.since)) : EMPTY_CELL)),
  text('HEARTBEAT', 10, (row) => (row.lastHeartbeatAt ? formatAge(row.lastHeartbeatAt, now) : EMPTY_CELL)),
  number(
    'RTT',
    7,
    (row) => row.rttMs ?? undefined,
    (v) => (v === undefined ? EMPTY_CELL : `${v.toFixed(1)}ms`),
  ),
]

/** The peers of GET /api/v1/system/mesh. */
export function meshRows(data: TopData): MeshPeer[] {
  return data.routes.mesh?.data?.peers ?? []
}
