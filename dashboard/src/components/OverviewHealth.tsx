/**
 * The overview's health figures over the window: parked consumers, lag, errors, event loop, CPU, pool,
 * partitions cleaned up by retention and eviction, and the pop lag as a chart. The replica figures (each
 * replica's newest per-minute sample, summed or at their worst) need the admin role; a lesser token is told so.
 */
import type { RetentionAnswer, StatusAnswer, SystemMetricsAnswer, SystemPoint } from '../../../src/wire/index.js'
import { formatCount } from '../format'
import { formatMs, formatPercent } from '../format-units'
import { latestPerReplica } from '../replica-series'
import type { TimeWindow } from '../router'
import type { Theme } from '../theme'
import { Tile } from './Tile'
import { TimeSeriesChart } from './TimeSeriesChart'
import { WINDOW_MS } from '../time-window'
import '../insights.css'

export function OverviewHealth({
  span,
  status,
  retention,
  system,
  theme,
}: {
  span: TimeWindow
  status: StatusAnswer
  retention: RetentionAnswer
  system: SystemMetricsAnswer | undefined
  theme: Theme
}) {
  const replicas = system === undefined ? [] : latestPerReplica(system.series)
  const sum = (value: (point: SystemPoint) => number) => replicas.reduce((total, point) => total + value(point), 0)
  const points = [...status.throughput].sort((a, b) => a.timestamp.localeCompare(b.timestamp))
  const maxLag = Math.max(0, ...points.map((point) => point.maxLagMs))
  const lastLag = points.at(-1)?.avgLagMs ?? 0
  const replicaNote = `${replicas.length} ${replicas.length === 1 ? 'replica' : 'replicas'}, last sample`
  const noSample = system !== undefined && replicas.length === 0

  return (
    <section aria-labelledby="health-title" className="card">
      <h2 id="health-title">Health, last {span}</h2>
      <dl className="tiles">
        <Tile label="Pop lag" value={formatMs(lastLag)} note={`avg, latest bucket; max ${formatMs(maxLag)}`} />
        <Tile
          label="Errors"
          value={formatCount(status.errors.dbErrors + status.errors.ackFailed)}
          note={`${formatCount(status.errors.dbErrors)} database, ${formatCount(status.errors.ackFailed)} ack, ${formatCount(status.errors.dlqMessages)} to DLQ`}
        />
        {system !== undefined && !noSample && (
          <>
            <Tile label="Parked consumers" value={formatCount(sum((p) => p.parkedPops))} note={replicaNote} />
            <Tile
              label="CPU"
              value={formatPercent(sum((p) => p.cpuUserPercent + p.cpuSystemPercent))}
              note="of one core, all replicas"
            />
            <Tile
              label="Event loop p99"
              value={formatMs(Math.max(...replicas.map((p) => p.eventLoopLagP99Ms)))}
              note="worst replica"
            />
            <Tile
              label="Pool"
              value={`${formatCount(sum((p) => p.poolTotal - p.poolIdle))} busy`}
              note={`of ${formatCount(sum((p) => p.poolTotal))}; ${formatCount(sum((p) => p.poolWaiting))} waiting`}
            />
          </>
        )}
        <Tile
          label="Retention"
          value={formatCount(retention.totals.retention + retention.totals.completedRetention)}
          note="messages removed in the window"
        />
        <Tile label="Eviction" value={formatCount(retention.totals.eviction)} note="messages evicted in the window" />
        <Tile label="Partitions cleaned" value={formatCount(retention.totals.partitions)} note="empty, removed" />
      </dl>
      {system === undefined && (
        <p className="note">CPU, event loop, pool and parked consumers are shown to the admin role.</p>
      )}
      {noSample && <p className="note">No replica has written its per-minute metrics in the last {span} yet.</p>}
      <h3>Pop lag</h3>
      <TimeSeriesChart
        times={points.map((point) => Date.parse(point.timestamp) / 1000)}
        series={[
          { label: 'avg lag', color: '--chart-1', values: points.map((point) => point.avgLagMs) },
          { label: 'max lag', color: '--chart-4', values: points.map((point) => point.maxLagMs) },
        ]}
        theme={theme}
        format={(value) => formatMs(value)}
        windowMs={WINDOW_MS[span]}
        label={
          points.length === 0
            ? `No pops recorded in the last ${span}`
            : `Pop lag per ${status.bucketMinutes}-minute bucket over the last ${span}; latest average ${formatMs(lastLag)}, highest ${formatMs(maxLag)}`
        }
      />
    </section>
  )
}
