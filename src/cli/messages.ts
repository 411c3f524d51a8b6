/**
 * The `messages` commands (docs/http-api.md, "Messages, DLQ and traces"): the list query, the list and trace tables,
 * and the detail view of one message.
 */
import { Args, Flags } from '@oclif/core'
import type { HttpClient } from './http-client.js'
import { formatAge, truncate } from './format.js'
import type { Column } from './output.js'
import { parseTime } from './times.js'

import type {
  MessageDetailAnswer as MessageDetail,
  MessageListAnswer,
  MessageListItem,
  TraceEvent,
} from '../wire/index.js'

/** The answers the commands read (src/wire/messages.ts, src/wire/traces.ts). */
export type { MessageListItem, MessageDetail, TraceEvent }

/** The statuses GET /api/v1/messages filters on (`failed` is the broker's alias of dead_letter). */
export const MESSAGE_STATUSES = ['pending', 'processing', 'completed', 'dead_letter', 'failed'] as const

/** The two arguments naming one message. */
export const messageArgs = {
  partitionId: Args.string({
    description: 'partition id (the PARTITION ID column of messages list -o wide)',
    required: true,
  }),
  transactionId: Args.string({ description: 'transaction id', required: true }),
}

export const messageListFlags = {
  queue: Flags.string({ description: 'only this queue' }),
  partition: Flags.string({ description: 'only this partition name' }),
  namespace: Flags.string({ description: 'only queues of this namespace' }),
  task: Flags.string({ description: 'only queues of this task' }),
  status: Flags.string({ description: 'only messages in this status', options: [...MESSAGE_STATUSES] }),
  cg: Flags.string({ description: 'compute the status for this consumer group (default: queue mode)' }),
  from: Flags.string({ description: 'created at or after (default: 1h ago): 15m, "2h ago", 2026-01-31, RFC 3339' }),
  to: Flags.string({ description: 'created at or before (default: now)' }),
  limit: Flags.integer({ description: 'rows to list (1-1000)', default: 200, min: 1, max: 1000 }),
  offset: Flags.integer({ description: 'rows to skip', default: 0, min: 0 }),
}

/** The query of GET /api/v1/messages for the parsed flags. */
export function messageListQuery(flags: {
  queue?: string
  partition?: string
  namespace?: string
  task?: string
  status?: string
  cg?: string
  from?: string
  to?: string
  limit: number
  offset: number
}): Record<string, string | number | undefined> {
  return {
    queue: flags.queue,
    partition: flags.partition,
    ns: flags.namespace,
    task: flags.task,
    status: flags.status,
    consumerGroup: flags.cg,
    from: flags.from === undefined ? undefined : parseTime(flags.from, { flag: '--from' }),
    to: flags.to === undefined ? undefined : parseTime(flags.to, { flag: '--to' }),
    limit: flags.limit,
    offset: flags.offset,
  }
}

export const MESSAGE_COLUMNS: Column<MessageListItem>[] = [
  { header: 'TX', value: (row) => row.transactionId },
  { header: 'QUEUE', value: (row) => row.queue },
  { header: 'PARTITION', value: (row) => row.partition },
  { header: 'STATUS', value: (row) => row.status },
  { header: 'CREATED', value: (row) => formatAge(row.createdAt) },
  { header: 'PARTITION ID', value: (row) => row.partitionId, wide: true },
  { header: 'NAMESPACE', value: (row) => row.namespace, wide: true },
  { header: 'TASK', value: (row) => row.task, wide: true },
  { header: 'GROUPS', value: (row) => `${row.busStatus.consumedBy}/${row.busStatus.totalGroups}`, wide: true },
  { header: 'LEASE EXPIRES', value: (row) => formatAge(row.leaseExpiresAt), wide: true },
]

export const TRACE_COLUMNS: Column<TraceEvent>[] = [
  { header: 'CREATED', value: (row) => formatAge(row.created_at) },
  { header: 'EVENT', value: (row) => row.event_type },
  { header: 'GROUP', value: (row) => row.consumer_group },
  { header: 'WORKER', value: (row) => row.worker_id },
  { header: 'NAMES', value: (row) => row.trace_names.join(',') },
  { header: 'DATA', value: (row) => truncate(JSON.stringify(row.data), 60) },
  { header: 'ID', value: (row) => row.id, wide: true },
]

/** The key/value view of one message: its identity, state, failures and payload. */
export function messageDisplay(message: MessageDetail): Record<string, unknown> {
  return {
    transactionId: message.transactionId,
    partitionId: message.partitionId,
    queue: message.queue,
    partition: message.partition,
    status: message.status,
    created: `${message.createdAt} (${formatAge(message.createdAt)})`,
    retries: message.retryCount,
    error: message.errorMessage,
    mode: message.mode.type,
    consumerGroups: message.consumerGroups.map(
      (group) => `${group.name}: ${group.consumed ? 'consumed' : 'not consumed'}`,
    ),
    ...(message.traceId ? { traceId: message.traceId } : {}),
    ...(message.producerSub ? { producer: message.producerSub } : {}),
    encrypted: message.isEncrypted,
    payload: message.payloadError === undefined ? message.payload : `(unreadable: ${message.payloadError})`,
  }
}

/** The most rows GET /api/v1/messages answers at once (docs/http-api.md); larger listings are paged. */
export const MESSAGES_PAGE = 1000

/**
 * Up to `limit` rows from `offset` on, in pages of at most 1,000 (the broker's cap), so `--limit 10000` works as the
 * Go queenctl's usage has it. A row seen on an earlier page (new messages shift the newest-first order) is not
 * repeated.
 */
export async function listMessages(
  client: HttpClient,
  query: Record<string, string | number | undefined>,
  limit: number,
  offset: number,
): Promise<MessageListItem[]> {
  const rows: MessageListItem[] = []
  const seen = new Set<string>()
  for (let skip = offset; rows.length < limit;) {
    const page = Math.min(MESSAGES_PAGE, limit - rows.length)
    const answer = await client.get<MessageListAnswer>('/api/v1/messages', {
      query: { ...query, limit: page, offset: skip },
    })
    for (const row of answer.messages) {
      const key = `${row.partitionId}/${row.transactionId}`
      if (seen.has(key)) continue
      seen.add(key)
      rows.push(row)
    }
    if (answer.messages.length < page) break
    skip += answer.messages.length
  }
  return rows.slice(0, limit)
}
