/**
 * Shapes and columns of the queue routes (docs/http-api.md, "Queues and resources") shared by the queue and partition
 * commands.
 */
import type { QueueDepthAnswer, QueueDetailAnswer, QueueRow, PartitionDetail, MessageCounters } from '../wire/index.js'
import type { Column } from './output.js'

export type { MessageCounters, PartitionDetail, QueueDepthAnswer, QueueRow }
/** GET /api/v1/resources/queues/:queue. */
export type QueueDetail = QueueDetailAnswer

export const QUEUE_COLUMNS: Column<QueueRow>[] = [
  { header: 'NAME', value: (row) => row.name },
  { header: 'PARTITIONS', value: (row) => row.partitions },
  { header: 'PENDING', value: (row) => row.messages.pending },
  { header: 'PROCESSING', value: (row) => row.messages.processing },
  { header: 'TOTAL', value: (row) => row.messages.total },
  { header: 'NAMESPACE', value: (row) => row.namespace, wide: true },
  { header: 'TASK', value: (row) => row.task, wide: true },
  { header: 'CREATED', value: (row) => row.createdAt, wide: true },
]

export const PARTITION_COLUMNS: Column<PartitionDetail>[] = [
  { header: 'PARTITION', value: (row) => row.name },
  { header: 'PENDING', value: (row) => row.stats.pending },
  { header: 'PROCESSING', value: (row) => row.stats.processing },
  { header: 'COMPLETED', value: (row) => row.stats.completed },
  { header: 'FAILED', value: (row) => row.stats.failed, wide: true },
  { header: 'DLQ', value: (row) => row.stats.deadLetter, wide: true },
  { header: 'OLDEST', value: (row) => row.oldestMessage, wide: true },
  { header: 'NEWEST', value: (row) => row.newestMessage, wide: true },
  { header: 'ID', value: (row) => row.id, wide: true },
]

export const queuePath = (queue: string) => `/api/v1/resources/queues/${encodeURIComponent(queue)}`

/**
 * `queue depth` in table mode: the Go queenctl's summary (pending, partitions, partitionsPending; its `effective`
 * column is only for a conflating group, which this broker has none of), the rest in wide.
 */
export const DEPTH_COLUMNS: Column<QueueDepthAnswer>[] = [
  { header: 'PENDING', value: (row) => row.pending },
  { header: 'PARTITIONS', value: (row) => row.partitions.length },
  { header: 'PARTITIONS PENDING', value: (row) => row.partitionsPending },
  { header: 'PROCESSING', value: (row) => row.processing, wide: true },
  { header: 'READY', value: (row) => row.ready, wide: true },
  { header: 'GROUP', value: (row) => row.group ?? '', wide: true },
]
