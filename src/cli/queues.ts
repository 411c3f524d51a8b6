/**
 * Shapes and columns of the queue routes (docs/http-api.md, "Queues and resources") shared by the queue and partition
 * commands.
 */
import type { QueueDetailAnswer, QueueRow, PartitionDetail, MessageCounters } from '../wire/index.js'
import type { Column } from './output.js'

export type { MessageCounters, PartitionDetail, QueueRow }
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
