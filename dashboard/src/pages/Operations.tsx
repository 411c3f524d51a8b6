/**
 * Operations over a window (1h, 6h, 24h, in the URL), fetched together once per tick in a fixed number of
 * requests whatever the number of queues: per-queue rates (GET /api/v1/analytics/queue-ops) and lag at
 * delivery (GET /api/v1/analytics/queue-lag), parked consumers per replica (GET
 * /api/v1/analytics/queue-parked-replicas), the dead-letter queue and error counters (GET /api/v1/status),
 * and the depth of the work waiting: the spool (GET /api/v1/status/buffers) and the requests waiting for a
 * database connection (GET /metrics, which may be refused to a token: then that tile says so).
 */
import type {
  BuffersAnswer,
  MetricsAnswer,
  ParkedAnswer,
  QueueLagRow,
  QueueOpsAnswer,
  StatusAnswer,
} from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Link } from '../components/Link'
import { Tile } from '../components/Tile'
import { WindowPicker } from '../components/WindowPicker'
import { Sparkline } from '../components/Sparkline'
import { formatCount } from '../format'
import { formatPace } from '../pace'
import { hrefOf, type TimeWindow } from '../router'
import { WINDOW_MS } from '../time-window'
import { usePoll } from '../use-poll'


/** One queue's line of the operations table. */
interface QueueOperations {
  queue: string
  push: number
  pop: number
  ack: number
  failed: number
  dlq: number
  /** Mean lag at delivery, weighted by the messages delivered; null when none were. */
  avgLagMs: number | null
  maxLagMs: number
  /** The largest lag at delivery per bucket, oldest first. */
  lagSeries: number[]
}

/** One replica's parked pops. */
interface ReplicaParked {
  serverId: string
  latest: number
  max: number
  series: number[]
}

interface OperationsData {
  status: StatusAnswer
  queues: QueueOperations[]
  replicas: ReplicaParked[]
  buffers: BuffersAnswer
  /** Undefined with the reason when /metrics was refused. */
  metrics: MetricsAnswer | Error
  seconds: number
}

function byQueue(ops: QueueOpsAnswer, lag: QueueLagRow[]): QueueOperations[] {
  const lines = new Map<string, QueueOperations & { lagWeight: number; lagSum: number; buckets: Map<string, number> }>()
  const line = (queue: string) => {
    let found = lines.get(queue)
    if (found === undefined) {
      found = {
        queue,
        push: 0,
        pop: 0,
        ack: 0,
        failed: 0,
        dlq: 0,
        avgLagMs: null,
        maxLagMs: 0,
        lagSeries: [],
        lagWeight: 0,
        lagSum: 0,
        buckets: new Map(),
      }
      lines.set(queue, found)
    }
    return found
  }
  for (const totals of ops.queues)
    Object.assign(line(totals.queueName), {
      push: totals.push,
      pop: totals.pop,
      ack: totals.ack,
      failed: totals.failed,
      dlq: totals.dlq,
    })
  for (const row of lag) {
    const found = line(row.queueName)
    found.lagWeight += row.popCount
    found.lagSum += row.avgLagMs * row.popCount
    found.maxLagMs = Math.max(found.maxLagMs, row.maxLagMs)
    found.buckets.set(row.bucketTime, Math.max(found.buckets.get(row.bucketTime) ?? 0, row.maxLagMs))
  }
  return [...lines.values()].map(({ lagWeight, lagSum, buckets, ...rest }) => ({
    ...rest,
    avgLagMs: lagWeight > 0 ? lagSum / lagWeight : null,
    lagSeries: [...buckets.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, value]) => value),
  }))
}

async function fetchOperations(span: TimeWindow, signal: AbortSignal): Promise<OperationsData> {
  const to = new Date()
  const from = new Date(to.getTime() - WINDOW_MS[span])
  const range = new URLSearchParams({ from: from.toISOString(), to: to.toISOString() }).toString()
  const [status, ops, lag, parked, buffers, metrics] = await Promise.all([
    apiGet<StatusAnswer>(`/api/v1/status?${range}`, 'read', signal),
    apiGet<QueueOpsAnswer>(`/api/v1/analytics/queue-ops?${range}`, 'read', signal),
    apiGet<QueueLagRow[]>(`/api/v1/analytics/queue-lag?${range}`, 'read', signal),
    apiGet<ParkedAnswer>(`/api/v1/analytics/queue-parked-replicas?${range}`, 'read', signal),
    apiGet<BuffersAnswer>('/api/v1/status/buffers', 'read', signal),
    apiGet<MetricsAnswer>('/metrics', 'admin', signal).catch((error: unknown) => {
      if (signal.aborted) throw error
      return error as Error
    }),
  ])
  const replicas = parked.replicas.map((replica) => {
    const series = [...replica.series]
      .sort((a, b) => a.bucketTime.localeCompare(b.bucketTime))
      .map((point) => point.parkedPops)
    return { serverId: replica.serverId, latest: series.at(-1) ?? 0, max: Math.max(0, ...series), series }
  })
  return { status, queues: byQueue(ops, lag), replicas, buffers, metrics, seconds: WINDOW_MS[span] / 1000 }
}

function milliseconds(value: number | null): string {
  if (value === null) return '–'
  return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`
}

function queueColumns(seconds: number): Column<QueueOperations>[] {
  const rate = (count: number) => formatPace(count, seconds)
  return [
    {
      key: 'queue',
      header: 'Queue',
      cell: (row) => <Link href={hrefOf({ view: 'queue', name: row.queue })}>{row.queue}</Link>,
    },
    { key: 'push', header: 'Push', numeric: true, cell: (row) => rate(row.push) },
    { key: 'pop', header: 'Pop', numeric: true, cell: (row) => rate(row.pop) },
    { key: 'ack', header: 'Ack', numeric: true, cell: (row) => rate(row.ack) },
    { key: 'failed', header: 'Failed', numeric: true, cell: (row) => formatCount(row.failed) },
    { key: 'dlq', header: 'Dead-lettered', numeric: true, cell: (row) => formatCount(row.dlq) },
    { key: 'avg', header: 'Avg lag', numeric: true, cell: (row) => milliseconds(row.avgLagMs) },
    {
      key: 'max',
      header: 'Max lag',
      numeric: true,
      cell: (row) => milliseconds(row.lagSeries.length === 0 ? null : row.maxLagMs),
    },
    {
      key: 'trend',
      header: 'Max lag over time',
      cell: (row) =>
        row.lagSeries.length === 0 ? (
          <span className="note">no pops</span>
        ) : (
          <Sparkline
            values={row.lagSeries}
            label={`${row.queue}: largest lag at delivery per bucket, up to ${milliseconds(row.maxLagMs)}`}
          />
        ),
    },
  ]
}

const REPLICA_COLUMNS: Column<ReplicaParked>[] = [
  { key: 'replica', header: 'Replica', cell: (row) => row.serverId },
  { key: 'latest', header: 'Parked, last bucket', numeric: true, cell: (row) => formatCount(row.latest) },
  { key: 'max', header: 'Most at once', numeric: true, cell: (row) => formatCount(row.max) },
  {
    key: 'trend',
    header: 'Over time',
    cell: (row) => (
      <Sparkline
        values={row.series}
        label={`${row.serverId}: parked pops per bucket, at most ${formatCount(row.max)}`}
      />
    ),
  },
]

export function Operations({ span }: { span: TimeWindow }) {
  const { data, error } = usePoll(`operations:${span}`, (signal) => fetchOperations(span, signal))
  const queues = [...(data?.queues ?? [])].sort(
    (a, b) => b.push + b.pop - (a.push + a.pop) || a.queue.localeCompare(b.queue),
  )
  return (
    <>
      <div className="page-title">
        <h1>Operations</h1>
        <WindowPicker current={span} hrefFor={(window) => hrefOf({ view: 'operations', window })} />
      </div>
      <ErrorNote error={error} />
      {data !== undefined && (
        <>
          <section aria-labelledby="ops-queues-title" className="card">
            <h2 id="ops-queues-title">Queues, last {span}</h2>
            {queues.length === 0 ? (
              <p>No queue had traffic in the last {span}.</p>
            ) : (
              <DataTable
                caption={`Per-queue rates and lag over the last ${span}`}
                columns={queueColumns(data.seconds)}
                rows={queues}
                rowKey={(row) => row.queue}
              />
            )}
          </section>
          <section aria-labelledby="ops-parked-title" className="card">
            <h2 id="ops-parked-title">Parked consumers per replica</h2>
            {data.replicas.length === 0 ? (
              <p>No replica recorded parked pops in the last {span}.</p>
            ) : (
              <DataTable
                caption="Long-polling pops parked on each replica"
                columns={REPLICA_COLUMNS}
                rows={data.replicas}
                rowKey={(row) => row.serverId}
              />
            )}
          </section>
          <section aria-labelledby="ops-dlq-title" className="card">
            <h2 id="ops-dlq-title">Dead letters and errors</h2>
            <dl className="tiles">
              <Tile label="Dead letters" value={formatCount(data.status.deadLetterQueue.totalMessages)} />
              <Tile
                label="Partitions with dead letters"
                value={formatCount(data.status.deadLetterQueue.affectedPartitions)}
              />
              <Tile label="Database errors" value={formatCount(data.status.errors.dbErrors)} />
              <Tile label="Failed acks" value={formatCount(data.status.errors.ackFailed)} />
              <Tile label="Dead-lettered in window" value={formatCount(data.status.errors.dlqMessages)} />
            </dl>
            {data.status.deadLetterQueue.topErrors.length > 0 && (
              <>
                <h3>Top errors</h3>
                <ul className="plain-list">
                  {data.status.deadLetterQueue.topErrors.map((entry) => (
                    <li key={entry.error}>
                      <span className="num">{formatCount(entry.count)}</span> × <code>{entry.error}</code>
                    </li>
                  ))}
                </ul>
              </>
            )}
            <p className="note">
              <Link href="/dlq">Open the dead-letter queue</Link>
            </p>
          </section>
          <section aria-labelledby="ops-depth-title" className="card">
            <h2 id="ops-depth-title">Work waiting</h2>
            <dl className="tiles">
              <Tile label="Spool records to replay" value={formatCount(data.buffers.pending)} />
              <Tile label="Spool quarantined" value={formatCount(data.buffers.failed)} />
              <Tile label="Spool state" value={data.buffers.state} />
              {data.metrics instanceof Error ? (
                <Tile label="Waiting for a connection" value="not shown" />
              ) : (
                <>
                  <Tile label="Waiting for a connection" value={formatCount(data.metrics.database.waitingRequests)} />
                  <Tile
                    label="Connections idle"
                    value={`${formatCount(data.metrics.database.idleConnections)} of ${formatCount(data.metrics.database.poolSize)}`}
                  />
                </>
              )}
            </dl>
            <p className="note">
              The spool and the connection pool of replica {data.buffers.worker}: pushes spooled while PostgreSQL was
              unreachable, and requests queued for a database connection.
              {data.metrics instanceof Error && ` The pool figures need /metrics: ${data.metrics.message}.`}
            </p>
          </section>
        </>
      )}
    </>
  )
}
