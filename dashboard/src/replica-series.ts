/**
 * The per-replica series of GET /api/v1/analytics/system-metrics, cut into chart columns: one time axis for
 * every replica's buckets, one line per replica (null where a replica wrote nothing), and each replica's
 * newest point.
 */
import type { SystemPoint } from '../../src/wire/index.js'
import type { Series } from './components/TimeSeriesChart'

const COLORS = ['--chart-1', '--chart-2', '--chart-3', '--chart-4', '--chart-5', '--chart-6']

/** The time axis (epoch seconds) and one line per replica of `value`. */
export function replicaLines(
  points: readonly SystemPoint[],
  value: (point: SystemPoint) => number,
): { times: number[]; series: Series[] } {
  const times = [...new Set(points.map((point) => point.timestamp))].sort()
  const index = new Map(times.map((time, position) => [time, position]))
  const replicas = [...new Set(points.map((point) => point.serverId))].sort()
  const series = replicas.map((serverId, position) => {
    const values: (number | null)[] = times.map(() => null)
    for (const point of points) if (point.serverId === serverId) values[index.get(point.timestamp)!] = value(point)
    return { label: serverId, color: COLORS[position % COLORS.length]!, values }
  })
  return { times: times.map((time) => Date.parse(time) / 1000), series }
}

/** Each replica's newest point, by server id. */
export function latestPerReplica(points: readonly SystemPoint[]): SystemPoint[] {
  const latest = new Map<string, SystemPoint>()
  for (const point of points) {
    const seen = latest.get(point.serverId)
    if (seen === undefined || seen.timestamp < point.timestamp) latest.set(point.serverId, point)
  }
  return [...latest.values()].sort((a, b) => a.serverId.localeCompare(b.serverId))
}
