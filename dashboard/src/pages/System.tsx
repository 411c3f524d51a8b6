/**
 * The system page over the window in the URL: each replica's CPU, memory, event-loop delay and pool as
 * charts and as its latest figures (GET /api/v1/analytics/system-metrics), then PostgreSQL's internals for
 * the queen schema (GET /api/v1/analytics/postgres-stats): cache hit ratios, active queries, autovacuum,
 * dead tuples and table sizes. Both routes are for admins; a lesser token sees the 403's explanation.
 */
import type { PostgresStatsAnswer, SystemMetricsAnswer, SystemPoint } from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Tile } from '../components/Tile'
import { TimeSeriesChart } from '../components/TimeSeriesChart'
import { WindowPicker } from '../components/WindowPicker'
import { formatCount } from '../format'
import { formatAgo, formatBytes, formatMs, formatPercent } from '../format-units'
import { latestPerReplica, replicaLines } from '../replica-series'
import { hrefOf, type TimeWindow } from '../router'
import { useTheme } from '../theme'
import { WINDOW_MS, windowQuery } from '../time-window'
import { usePoll } from '../use-poll'
import '../insights.css'

const LARGEST = 10

type Stats = PostgresStatsAnswer
type Query = NonNullable<Stats['activeQueries']>[number]
type DeadRow = NonNullable<Stats['deadTuples']>[number]
type SizeRow = NonNullable<Stats['tableSizes']>[number]
type VacuumRow = NonNullable<Stats['autovacuumStatus']>['tables'][number]

const cpu = (point: SystemPoint) => point.cpuUserPercent + point.cpuSystemPercent

const REPLICA_COLUMNS: Column<SystemPoint>[] = [
  { key: 'server', header: 'Replica', cell: (p) => p.serverId },
  { key: 'host', header: 'Host, pid', cell: (p) => `${p.hostname}, ${p.pid}` },
  { key: 'cpu', header: 'CPU', numeric: true, cell: (p) => formatPercent(cpu(p)) },
  { key: 'rss', header: 'RSS', numeric: true, cell: (p) => formatBytes(p.rssBytes) },
  { key: 'heap', header: 'Heap used', numeric: true, cell: (p) => formatBytes(p.heapUsedBytes) },
  { key: 'loop', header: 'Event loop p99', numeric: true, cell: (p) => formatMs(p.eventLoopLagP99Ms) },
  {
    key: 'pool',
    header: 'Pool (idle/total, waiting)',
    numeric: true,
    cell: (p) => `${p.poolIdle}/${p.poolTotal}, ${p.poolWaiting}`,
  },
  { key: 'parked', header: 'Parked pops', numeric: true, cell: (p) => formatCount(p.parkedPops) },
  { key: 'seen', header: 'Sampled', cell: (p) => formatAgo(p.timestamp) },
]

const QUERY_COLUMNS: Column<Query>[] = [
  { key: 'pid', header: 'Pid', numeric: true, cell: (q) => String(q.pid) },
  { key: 'app', header: 'Application', cell: (q) => q.application ?? '–' },
  { key: 'state', header: 'State', cell: (q) => q.state ?? '–' },
  {
    key: 'wait',
    header: 'Waiting on',
    cell: (q) => (q.waitEventType === null ? '–' : `${q.waitEventType}: ${q.waitEvent ?? ''}`),
  },
  { key: 'duration', header: 'Running for', numeric: true, cell: (q) => formatMs(q.durationMs) },
  { key: 'query', header: 'Query', cell: (q) => <span className="query-text">{q.query ?? '–'}</span> },
]

const DEAD_COLUMNS: Column<DeadRow>[] = [
  { key: 'table', header: 'Table', cell: (t) => t.table },
  { key: 'live', header: 'Live tuples', numeric: true, cell: (t) => formatCount(t.liveTuples) },
  { key: 'dead', header: 'Dead tuples', numeric: true, cell: (t) => formatCount(t.deadTuples) },
  { key: 'ratio', header: 'Dead', numeric: true, cell: (t) => formatPercent(t.deadRatio) },
  { key: 'vacuum', header: 'Last autovacuum', cell: (t) => formatAgo(t.lastAutovacuum) },
]

const SIZE_COLUMNS: Column<SizeRow>[] = [
  { key: 'table', header: 'Table', cell: (t) => t.table },
  { key: 'total', header: 'Total', numeric: true, cell: (t) => formatBytes(t.totalBytes) },
  { key: 'data', header: 'Data', numeric: true, cell: (t) => formatBytes(t.tableBytes) },
  { key: 'index', header: 'Indexes', numeric: true, cell: (t) => formatBytes(t.indexBytes) },
  { key: 'rows', header: 'Rows (est.)', numeric: true, cell: (t) => formatCount(t.estimatedRows) },
]

const VACUUM_COLUMNS: Column<VacuumRow>[] = [
  { key: 'table', header: 'Table', cell: (t) => t.table },
  { key: 'vacuum', header: 'Last autovacuum', cell: (t) => formatAgo(t.lastAutovacuum) },
  { key: 'analyze', header: 'Last autoanalyze', cell: (t) => formatAgo(t.lastAutoanalyze) },
  { key: 'vacuums', header: 'Autovacuums', numeric: true, cell: (t) => formatCount(t.autovacuumCount) },
  { key: 'modified', header: 'Changed since analyze', numeric: true, cell: (t) => formatCount(t.modifiedSinceAnalyze) },
]

export function System({ span }: { span: TimeWindow }) {
  const theme = useTheme()
  const metrics = usePoll(`system-metrics:${span}`, (signal) =>
    apiGet<SystemMetricsAnswer>(`/api/v1/analytics/system-metrics?${windowQuery(span)}`, 'admin', signal),
  )
  const postgres = usePoll('postgres-stats', (signal) =>
    apiGet<PostgresStatsAnswer>('/api/v1/analytics/postgres-stats', 'admin', signal),
  )
  const points = metrics.data?.series ?? []
  const latest = latestPerReplica(points)
  const charts = [
    { id: 'cpu', title: 'CPU', value: cpu, format: (v: number) => formatPercent(v), unit: 'CPU of one core' },
    {
      id: 'rss',
      title: 'Memory (RSS)',
      value: (p: SystemPoint) => p.rssBytes,
      format: formatBytes,
      unit: 'resident memory',
    },
    {
      id: 'loop',
      title: 'Event-loop delay (p99)',
      value: (p: SystemPoint) => p.eventLoopLagP99Ms,
      format: (v: number) => formatMs(v),
      unit: 'event-loop delay',
    },
    {
      id: 'pool',
      title: 'Pool waiting',
      value: (p: SystemPoint) => p.poolWaiting,
      format: formatCount,
      unit: 'requests waiting for a database connection',
      integer: true,
    },
  ]

  return (
    <>
      <div className="page-title">
        <h1>System</h1>
        <WindowPicker current={span} hrefFor={(option) => hrefOf({ view: 'system', window: option })} />
      </div>
      <section aria-labelledby="replicas-title">
        <h2 id="replicas-title">Replicas</h2>
        <ErrorNote error={metrics.error} />
        {metrics.data !== undefined &&
          (latest.length === 0 ? (
            <p>No replica has written its per-minute metrics in the last {span}.</p>
          ) : (
            <>
              <DataTable
                className="card"
                caption="Each replica's latest per-minute sample"
                columns={REPLICA_COLUMNS}
                rows={latest}
                rowKey={(p) => p.serverId}
              />
              <div className="grid-2">
                {charts.map((chart) => {
                  const lines = replicaLines(points, chart.value)
                  const now = latest.map((p) => `${p.serverId} ${chart.format(chart.value(p))}`).join(', ')
                  return (
                    <section key={chart.id} aria-labelledby={`${chart.id}-title`} className="card">
                      <h3 id={`${chart.id}-title`}>{chart.title}</h3>
                      <TimeSeriesChart
                        times={lines.times}
                        series={lines.series}
                        theme={theme}
                        format={chart.format}
                        integer={chart.integer}
                        windowMs={WINDOW_MS[span]}
                        label={`${chart.title} per replica over the last ${span}; latest: ${now}`}
                      />
                    </section>
                  )
                })}
              </div>
            </>
          ))}
      </section>
      <section aria-labelledby="postgres-title">
        <h2 id="postgres-title">PostgreSQL</h2>
        <ErrorNote error={postgres.error} />
        {postgres.data !== undefined && <PostgresInternals stats={postgres.data} />}
      </section>
    </>
  )
}

function Unreadable({ what }: { what: string }) {
  return <p className="note">The broker's database role may not read {what}.</p>
}

function PostgresInternals({ stats }: { stats: PostgresStatsAnswer }) {
  const database = stats.databaseCache
  const summary = stats.cacheSummary
  const vacuum = stats.autovacuumStatus
  return (
    <>
      <dl className="tiles">
        <Tile label="Cache hit (database)" value={formatPercent(database?.hitRatio ?? null)} />
        <Tile label="Cache hit (tables)" value={formatPercent(summary?.tableHitRatio ?? null)} />
        <Tile label="Cache hit (indexes)" value={formatPercent(summary?.indexHitRatio ?? null)} />
        <Tile
          label="Connections"
          value={database === null ? '–' : formatCount(database.connections)}
          note={
            stats.bufferConfig === null ? undefined : `of ${formatCount(stats.bufferConfig.maxConnections)} allowed`
          }
        />
        <Tile label="Deadlocks" value={database === null ? '–' : formatCount(database.deadlocks)} />
        <Tile
          label="Shared buffers"
          value={
            stats.bufferConfig?.sharedBuffersBytes == null ? '–' : formatBytes(stats.bufferConfig.sharedBuffersBytes)
          }
        />
      </dl>
      <section aria-labelledby="queries-title" className="card">
        <h3 id="queries-title">Active queries</h3>
        {stats.activeQueries === null ? (
          <Unreadable what="pg_stat_activity" />
        ) : stats.activeQueries.length === 0 ? (
          <p>No other query is running.</p>
        ) : (
          <DataTable columns={QUERY_COLUMNS} rows={stats.activeQueries} rowKey={(q) => String(q.pid)} />
        )}
      </section>
      <section aria-labelledby="vacuum-title" className="card">
        <h3 id="vacuum-title">Autovacuum</h3>
        {vacuum === null ? (
          <Unreadable what="the autovacuum settings" />
        ) : (
          <>
            <p>
              {vacuum.enabled ? 'On' : 'Off'}: up to {vacuum.maxWorkers} workers, a pass every {vacuum.naptimeSeconds}{' '}
              s, vacuum when {formatPercent(vacuum.vacuumScaleFactor, { ratio: true })} of a table changed.
            </p>
            <DataTable
              columns={VACUUM_COLUMNS}
              rows={[...vacuum.tables]
                .sort((a, b) => b.modifiedSinceAnalyze - a.modifiedSinceAnalyze)
                .slice(0, LARGEST)}
              rowKey={(t) => t.table}
            />
          </>
        )}
      </section>
      <>
        <section aria-labelledby="dead-title" className="card">
          <h3 id="dead-title">Dead tuples</h3>
          {stats.deadTuples === null ? (
            <Unreadable what="pg_stat_user_tables" />
          ) : (
            <DataTable
              columns={DEAD_COLUMNS}
              rows={[...stats.deadTuples].sort((a, b) => b.deadTuples - a.deadTuples).slice(0, LARGEST)}
              rowKey={(t) => t.table}
            />
          )}
        </section>
        <section aria-labelledby="sizes-title" className="card">
          <h3 id="sizes-title">Table sizes</h3>
          {stats.tableSizes === null ? (
            <Unreadable what="the table sizes" />
          ) : (
            <DataTable
              columns={SIZE_COLUMNS}
              rows={[...stats.tableSizes].sort((a, b) => b.totalBytes - a.totalBytes).slice(0, LARGEST)}
              rowKey={(t) => t.table}
            />
          )}
        </section>
      </>
    </>
  )
}
