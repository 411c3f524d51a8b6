/**
 * What the queues grid adds to the listing, for every queue in two requests whatever their number: the
 * push series of the last hour per queue (GET /api/v1/analytics/queue-ops without `queue`, per-minute buckets,
 * so read at most every 30 s: a bucket cannot change faster than the minute metrics are written), and the
 * lag of the groups reading each queue (GET /api/v1/consumer-groups, every tick).
 */
import type { ConsumerGroupRow, QueueOpsAnswer } from '../../src/wire/index.js'
import { apiGet } from './api'

const HOUR_MS = 3_600_000
/** How long a read of the per-minute series is reused. */
const SERIES_REUSE_MS = 30_000

/** One queue's activity. */
export interface QueueActivity {
  /** Pushes per bucket over the last hour, oldest first, empty buckets 0. */
  pushes: number[]
  /** Pushes over the last hour. */
  pushed: number
  /** Age in seconds of the oldest message a group (queue mode included) has not settled; 0 when none. */
  lagSeconds: number
  /** Messages the groups have not settled, summed over the groups. */
  unsettled: number
}

let reused: { at: number; series: Map<string, number[]> } | undefined

async function pushSeries(signal: AbortSignal): Promise<Map<string, number[]>> {
  if (reused !== undefined && Date.now() - reused.at < SERIES_REUSE_MS) return reused.series
  const to = new Date()
  const from = new Date(to.getTime() - HOUR_MS)
  const query = new URLSearchParams({ from: from.toISOString(), to: to.toISOString() })
  const answer = await apiGet<QueueOpsAnswer>(`/api/v1/analytics/queue-ops?${query.toString()}`, 'read', signal)
  const bucketMs = answer.bucketMinutes * 60_000
  const start = Math.floor(Date.parse(answer.timeRange.from) / bucketMs) * bucketMs
  const count = Math.max(1, Math.ceil((Date.parse(answer.timeRange.to) - start) / bucketMs))
  const series = new Map<string, number[]>()
  for (const bucket of answer.series) {
    let values = series.get(bucket.queueName)
    if (values === undefined) {
      values = Array<number>(count).fill(0)
      series.set(bucket.queueName, values)
    }
    const index = Math.floor((Date.parse(bucket.bucketTime) - start) / bucketMs)
    if (index >= 0 && index < count) values[index] = (values[index] ?? 0) + bucket.push
  }
  reused = { at: Date.now(), series }
  return series
}

/** Forgets the reused series (after a delete, or for a test that pushed). */
export function forgetActivity(): void {
  reused = undefined
}

/** Every queue's activity, by queue name. */
export async function fetchQueueActivity(signal: AbortSignal): Promise<Map<string, QueueActivity>> {
  const [series, groups] = await Promise.all([
    pushSeries(signal),
    apiGet<ConsumerGroupRow[]>('/api/v1/consumer-groups', 'read', signal),
  ])
  const activity = new Map<string, QueueActivity>()
  const entry = (queue: string) => {
    let found = activity.get(queue)
    if (found === undefined) {
      const pushes = series.get(queue) ?? []
      found = { pushes, pushed: pushes.reduce((sum, value) => sum + value, 0), lagSeconds: 0, unsettled: 0 }
      activity.set(queue, found)
    }
    return found
  }
  for (const queue of series.keys()) entry(queue)
  for (const group of groups) {
    const found = entry(group.queueName)
    found.lagSeconds = Math.max(found.lagSeconds, group.maxTimeLag)
    found.unsettled += group.totalLag
  }
  return activity
}
