/**
 * Shapes and columns of the consumer-group routes (docs/http-api.md, "Consumer groups") shared by cg, lag, replay and
 * partition seek.
 */
import { confirmAction } from './confirm.js'
import type { Column, Output } from './output.js'
import type { HttpClient } from './http-client.js'
import type { SeekTarget } from './times.js'

import type {
  ConsumerGroupRow as GroupRow,
  ConsumerGroupSeekAnswer as SeekAnswer,
  LaggingPartitionRow as LaggingRow,
} from '../wire/index.js'

/** The answers these commands read (src/wire/consumer-groups.ts). */
export type { GroupRow, LaggingRow, SeekAnswer }

export const GROUP_COLUMNS: Column<GroupRow>[] = [
  { header: 'GROUP', value: (row) => row.name },
  { header: 'QUEUE', value: (row) => row.queueName },
  { header: 'STATE', value: (row) => row.state },
  { header: 'LAG', value: (row) => row.totalLag },
  { header: 'MAX LAG (S)', value: (row) => row.maxTimeLag },
  { header: 'PARTITIONS LAGGING', value: (row) => row.partitionsWithLag, wide: true },
  { header: 'MEMBERS', value: (row) => row.members, wide: true },
  { header: 'SUBSCRIPTION', value: (row) => row.subscriptionMode, wide: true },
  { header: 'SUBSCRIBED AT', value: (row) => row.subscriptionTimestamp, wide: true },
]

export const LAGGING_COLUMNS: Column<LaggingRow>[] = [
  { header: 'GROUP', value: (row) => row.consumer_group },
  { header: 'QUEUE', value: (row) => row.queue_name },
  { header: 'PARTITION', value: (row) => row.partition_name },
  { header: 'LAG', value: (row) => row.offset_lag },
  { header: 'LAG (S)', value: (row) => row.time_lag_seconds },
  { header: 'OLDEST UNCONSUMED', value: (row) => row.oldest_unconsumed_at, wide: true },
  { header: 'LAST CONSUMED', value: (row) => row.last_consumed_at, wide: true },
  { header: 'PARTITION ID', value: (row) => row.partition_id, wide: true },
]

/** GET /api/v1/consumer-groups/lagging with a threshold in seconds (the broker's default is 3600). */
export function fetchLagging(client: HttpClient, minSeconds: number | undefined): Promise<LaggingRow[]> {
  return client.get<LaggingRow[]>('/api/v1/consumer-groups/lagging', { query: { minLagSeconds: minSeconds } })
}

/** POST /api/v1/consumer-groups/:group/queues/:queue/seek. */
export function seekGroup(client: HttpClient, group: string, queue: string, target: SeekTarget): Promise<SeekAnswer> {
  return client.post<SeekAnswer>(
    `/api/v1/consumer-groups/${encodeURIComponent(group)}/queues/${encodeURIComponent(queue)}/seek`,
    target,
  )
}

/** `to the head` or `to 2026-01-31T00:00:00.000Z`, for confirmations. */
export function describeTarget(target: SeekTarget): string {
  return 'toEnd' in target ? 'to the head (skip everything unconsumed)' : `to ${target.timestamp}`
}

/** What a seek's --dry-run prints. */
export interface SeekDryRun {
  dryRun: true
  group: string
  queue: string
  body: SeekTarget
}

/** `cg seek` and `replay`: confirm on a terminal (off one they go ahead, as the Go queenctl does), seek, confirm on stderr; --dry-run sends nothing. */
export async function runSeek(
  out: Output,
  client: () => Promise<HttpClient>,
  request: { group: string; queue: string; target: SeekTarget; yes: boolean; dryRun: boolean; retry: string },
): Promise<SeekAnswer | SeekDryRun> {
  const what = `move group ${request.group} on queue ${request.queue} ${describeTarget(request.target)}`
  if (request.dryRun) {
    out.note(`would ${what}`)
    const result: SeekDryRun = { dryRun: true, group: request.group, queue: request.queue, body: request.target }
    if (!out.tabular) out.detail({}, result)
    return result
  }
  await confirmAction({
    yes: request.yes,
    question: `${what[0]!.toUpperCase()}${what.slice(1)}?`,
    action: what,
    retry: request.retry,
    proceedOffTerminal: true,
  })
  const answer = await seekGroup(await client(), request.group, request.queue, request.target)
  out.confirm(
    `moved group ${request.group} on queue ${request.queue} ${describeTarget(request.target)}: ${answer.partitionsUpdated} partition(s)`,
  )
  if (!out.tabular) out.detail({}, answer)
  return answer
}
