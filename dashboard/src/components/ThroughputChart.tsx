/**
 * Push, pop and ack rates over the window as a line chart: a {@link TimeSeriesChart} of the throughput
 * points of GET /api/v1/status.
 */
import type { ThroughputPoint } from '../../../src/wire/index.js'
import { formatRate } from '../format'
import type { Theme } from '../theme'
import { TimeSeriesChart } from './TimeSeriesChart'

const SERIES = [
  { label: 'push/s', key: 'ingestedPerSecond', color: '--chart-push' },
  { label: 'pop/s', key: 'popPerSecond', color: '--chart-pop' },
  { label: 'ack/s', key: 'processedPerSecond', color: '--chart-ack' },
] as const

export function ThroughputChart({
  points,
  theme,
  label,
  windowMs,
}: {
  points: readonly ThroughputPoint[]
  theme: Theme
  label: string
  windowMs?: number
}) {
  const sorted = [...points].sort((a, b) => a.timestamp.localeCompare(b.timestamp))
  return (
    <TimeSeriesChart
      times={sorted.map((point) => Date.parse(point.timestamp) / 1000)}
      series={SERIES.map((series) => ({
        label: series.label,
        color: series.color,
        values: sorted.map((point) => point[series.key]),
      }))}
      theme={theme}
      format={formatRate}
      label={label}
      windowMs={windowMs}
    />
  )
}
