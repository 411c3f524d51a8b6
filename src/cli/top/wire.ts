/**
 * The broker answers `queenctl top` reads, under the names its panes use. Every shape is the HTTP contract's
 * own, from src/wire (docs/http-api.md); this module only names them for `top`.
 */
export type {
  ConsumerGroupRow,
  DlqAnswer,
  DlqMessage,
  MaintenanceAnswer,
  MaintenanceSetAnswer,
  MeshAnswer,
  MeshPeer,
  MessageCounters,
  PopMaintenanceAnswer,
  PostgresStatsAnswer,
  QueueDetailAnswer,
  QueueOpsAnswer,
  StatusAnswer,
  SystemMetricsAnswer,
} from '../../wire/index.js'
import type { OpCounts, QueueListAnswer, QueueRow, SystemPoint } from '../../wire/index.js'

/** One row of GET /api/v1/resources/queues. */
export type QueueResource = QueueRow
/** GET /api/v1/resources/queues. */
export type QueuesAnswer = QueueListAnswer
/** One row of GET /api/v1/analytics/queue-ops `series`: counts of one queue in one bucket. */
export type QueueOpsRow = OpCounts & { bucketTime: string }
/** One point of GET /api/v1/analytics/system-metrics: one replica in one bucket. */
export type SystemMetricsPoint = SystemPoint
