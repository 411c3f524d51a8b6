/**
 * The overview, fetched together once per tick: GET /api/v1/status over the window (totals, the push/pop/ack
 * rates and the lag as charts, errors), GET /api/v1/status/top (queue and partition counts, the top queues by
 * pending and the groups by lag, bounded), GET /api/v1/analytics/retention (what retention and eviction
 * removed) and, for an admin, GET /api/v1/analytics/system-metrics (each replica's CPU, event loop, pool and
 * parked consumers). Every answer is bounded whatever the number of queues, so an open overview costs the
 * broker the same with 10 queues or 1,000 (bench/README.md, "The cost of an open dashboard"). The window
 * (1h, 6h, 24h) is in the URL.
 */
import type {
  RetentionAnswer,
  StatusAnswer,
  StatusTopAnswer,
  SystemMetricsAnswer,
  TopGroup,
  TopQueue,
} from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { mayAdminister, useAuth } from '../auth'
import { OverviewHealth } from '../components/OverviewHealth'
import { Tile } from '../components/Tile'
import { WindowPicker } from '../components/WindowPicker'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Link } from '../components/Link'
import { ThroughputChart } from '../components/ThroughputChart'
import { formatCount, formatDuration, formatRate } from '../format'
import { hrefOf, type TimeWindow } from '../router'
import { useTheme } from '../theme'
import { WINDOW_MS, windowQuery } from '../time-window'
import { usePoll } from '../use-poll'

const TOP_QUEUES = 10

const TOP_COLUMNS: Column<TopQueue>[] = [
  { key: 'name', header: 'Queue', cell: (q) => <Link href={hrefOf({ view: 'queue', name: q.name })}>{q.name}</Link> },
  { key: 'pending', header: 'Pending', numeric: true, cell: (q) => formatCount(q.pending) },
  { key: 'processing', header: 'Processing', numeric: true, cell: (q) => formatCount(q.processing) },
  { key: 'partitions', header: 'Partitions', numeric: true, cell: (q) => formatCount(q.partitions) },
]

const GROUP_COLUMNS: Column<TopGroup>[] = [
  {
    key: 'group',
    header: 'Group',
    cell: (g) => (g.consumerGroup === '__QUEUE_MODE__' ? 'queue mode' : g.consumerGroup),
  },
  {
    key: 'queue',
    header: 'Queue',
    cell: (g) => <Link href={hrefOf({ view: 'queue', name: g.queueName })}>{g.queueName}</Link>,
  },
  { key: 'lag', header: 'Lag', numeric: true, cell: (g) => formatCount(g.lagMessages) },
  { key: 'age', header: 'Oldest', numeric: true, cell: (g) => formatDuration(g.lagSeconds) },
]

interface OverviewData {
  status: StatusAnswer
  top: StatusTopAnswer
  retention: RetentionAnswer
  /** Undefined for a token without the admin role, which the route refuses. */
  system: SystemMetricsAnswer | undefined
}

async function fetchOverview(span: TimeWindow, admin: boolean, signal: AbortSignal): Promise<OverviewData> {
  const range = windowQuery(span)
  const [status, top, retention, system] = await Promise.all([
    apiGet<StatusAnswer>(`/api/v1/status?${range}`, 'read', signal),
    apiGet<StatusTopAnswer>(`/api/v1/status/top?limit=${TOP_QUEUES}`, 'read', signal),
    apiGet<RetentionAnswer>(`/api/v1/analytics/retention?${range}`, 'read', signal),
    admin
      ? apiGet<SystemMetricsAnswer>(`/api/v1/analytics/system-metrics?${range}`, 'admin', signal)
      : Promise.resolve(undefined),
  ])
  return { status, top, retention, system }
}

export function Overview({ span }: { span: TimeWindow }) {
  const theme = useTheme()
  const admin = mayAdminister(useAuth().token)
  const { data, error } = usePoll(`overview:${span}:${admin}`, (signal) => fetchOverview(span, admin, signal))
  const status = data?.status
  const last = status?.throughput.at(-1)
  const top = data?.top.queuesByPending ?? []
  const groups = data?.top.groupsByLag ?? []

  return (
    <>
      <div className="page-title">
        <h1>Overview</h1>
        <WindowPicker current={span} hrefFor={(option) => hrefOf({ view: 'overview', window: option })} />
      </div>
      <ErrorNote error={error} />
      {status !== undefined && (
        <>
          <section aria-labelledby="totals-title">
            <h2 id="totals-title">Messages</h2>
            <dl className="tiles">
              <Tile label="Total" value={formatCount(status.messages.total)} />
              <Tile label="Pending" value={formatCount(status.messages.pending)} />
              <Tile label="Processing" value={formatCount(status.messages.processing)} />
              <Tile label="Completed" value={formatCount(status.messages.completed)} />
              <Tile label="Failed" value={formatCount(status.messages.failed)} />
              <Tile label="Dead letter" value={formatCount(status.messages.deadLetter)} />
              <Tile label="Active leases" value={formatCount(status.leases.active)} />
              <Tile label="Queues" value={formatCount(data?.top.queues ?? 0)} />
              <Tile label="Partitions" value={formatCount(data?.top.partitions ?? 0)} />
            </dl>
          </section>
          <section aria-labelledby="throughput-title" className="card">
            <h2 id="throughput-title">Throughput, last {span}</h2>
            <ThroughputChart
              points={status.throughput}
              windowMs={WINDOW_MS[span]}
              theme={theme}
              label={
                last === undefined
                  ? `No throughput recorded in the last ${span}`
                  : `Push, pop and ack rates per ${status.bucketMinutes}-minute bucket over the last ${span}; latest: push ${formatRate(last.ingestedPerSecond)}, pop ${formatRate(last.popPerSecond)}, ack ${formatRate(last.processedPerSecond)}`
              }
            />
            <p className="note">
              Requests since this replica started: push {formatCount(status.messages.requests.push)}, pop{' '}
              {formatCount(status.messages.requests.pop)}, ack {formatCount(status.messages.requests.ack)}.
              {status.statsAge !== null && ` Counters are ${Math.round(status.statsAge)} s old.`}
            </p>
          </section>
          {data !== undefined && (
            <OverviewHealth span={span} status={status} retention={data.retention} system={data.system} theme={theme} />
          )}
          <div className="grid-2">
            <section aria-labelledby="top-title" className="card">
              <h2 id="top-title">Top queues by pending</h2>
              {top.length === 0 ? (
                <p>No queue has pending messages.</p>
              ) : (
                <DataTable columns={TOP_COLUMNS} rows={top} rowKey={(queue) => queue.name} />
              )}
            </section>
            <section aria-labelledby="groups-title" className="card">
              <h2 id="groups-title">Groups by lag</h2>
              {groups.length === 0 ? (
                <p>No consumer group lags.</p>
              ) : (
                <DataTable
                  columns={GROUP_COLUMNS}
                  rows={groups}
                  rowKey={(group) => `${group.consumerGroup}\n${group.queueName}`}
                />
              )}
            </section>
          </div>
        </>
      )}
    </>
  )
}
