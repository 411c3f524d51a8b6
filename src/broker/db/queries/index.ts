/**
 * The broker's registry of runtime statements (docs/conventions.md, "SQL lives in .sql files"): one `.sql`
 * file per statement in this folder, each mapped here to a typed name, loaded by the platform's registry
 * when this module loads.
 */
import { loadSqlRegistry } from '../../../platform/postgres/sql-registry.js'

const FILES = {
  analyticsParked: 'analytics-parked.sql',
  analyticsQueueLag: 'analytics-queue-lag.sql',
  analyticsQueueOps: 'analytics-queue-ops.sql',
  analyticsRetention: 'analytics-retention.sql',
  analyticsSystem: 'analytics-system.sql',
  consumerGroupDelete: 'consumer-group-delete.sql',
  consumerGroupDescribe: 'consumer-group-describe.sql',
  consumerGroupLagging: 'consumer-group-lagging.sql',
  consumerGroupList: 'consumer-group-list.sql',
  consumerGroupSeek: 'consumer-group-seek.sql',
  consumerGroupSubscription: 'consumer-group-subscription.sql',
  dedupPurge: 'dedup-purge.sql',
  dlqList: 'dlq-list.sql',
  evictionRun: 'eviction-run.sql',
  leaseExtend: 'lease-extend.sql',
  leaseLockRequired: 'lease-lock-required.sql',
  leaseReclaimExpired: 'lease-reclaim-expired.sql',
  leaseRelease: 'lease-release.sql',
  housekeepingTryLock: 'housekeeping-try-lock.sql',
  messageAck: 'message-ack.sql',
  messageAckLeases: 'message-ack-leases.sql',
  messageDeadLetter: 'message-dead-letter.sql',
  messageDeadLetterUndecryptable: 'message-dead-letter-undecryptable.sql',
  messageDelete: 'message-delete.sql',
  messageGet: 'message-get.sql',
  messageList: 'message-list.sql',
  messagePayloadReplace: 'message-payload-replace.sql',
  messagePop: 'message-pop.sql',
  messagePush: 'message-push.sql',
  messageRetry: 'message-retry.sql',
  messageRetriedCopy: 'message-retried-copy.sql',
  metricsQueueWrite: 'metrics-queue-write.sql',
  metricsServerWrite: 'metrics-server-write.sql',
  partitionCleanup: 'partition-cleanup.sql',
  partitionGet: 'partition-get.sql',
  partitionList: 'partition-list.sql',
  partitionSeek: 'partition-seek.sql',
  postgresActiveQueries: 'postgres-active-queries.sql',
  postgresBufferUsage: 'postgres-buffer-usage.sql',
  postgresDatabaseCache: 'postgres-database-cache.sql',
  postgresIndexCache: 'postgres-index-cache.sql',
  postgresSettings: 'postgres-settings.sql',
  postgresTableActivity: 'postgres-table-activity.sql',
  postgresTableCache: 'postgres-table-cache.sql',
  postgresTableSizes: 'postgres-table-sizes.sql',
  queueClear: 'queue-clear.sql',
  queueConfigure: 'queue-configure.sql',
  queueDepth: 'queue-depth.sql',
  queueDelete: 'queue-delete.sql',
  queueEncryptionSettings: 'queue-encryption-settings.sql',
  queueGet: 'queue-get.sql',
  queueList: 'queue-list.sql',
  queueListByNamespace: 'queue-list-by-namespace.sql',
  queuePartitions: 'queue-partitions.sql',
  resourceNamespaces: 'resource-namespaces.sql',
  resourceOverview: 'resource-overview.sql',
  resourceTasks: 'resource-tasks.sql',
  retentionCompleted: 'retention-completed.sql',
  retentionExpired: 'retention-expired.sql',
  retentionPurgeHistory: 'retention-purge-history.sql',
  retentionPurgeLeases: 'retention-purge-leases.sql',
  retentionRepairCursors: 'retention-repair-cursors.sql',
  statsConsumers: 'stats-consumers.sql',
  statsQueues: 'stats-queues.sql',
  statsRefresh: 'stats-refresh.sql',
  statsSystem: 'stats-system.sql',
  statusDlq: 'status-dlq.sql',
  statusDlqErrors: 'status-dlq-errors.sql',
  statusLeases: 'status-leases.sql',
  statusQueueList: 'status-queue-list.sql',
  statusQueueMessages: 'status-queue-messages.sql',
  statusQueuePartitions: 'status-queue-partitions.sql',
  statusQueues: 'status-queues.sql',
  statusThroughput: 'status-throughput.sql',
  statusTopCounts: 'status-top-counts.sql',
  statusTopGroups: 'status-top-groups.sql',
  statusTopQueues: 'status-top-queues.sql',
  statusTotals: 'status-totals.sql',
  statusWorkers: 'status-workers.sql',
  streamAckRun: 'stream-ack-run.sql',
  streamLeaseCapture: 'stream-lease-capture.sql',
  streamLeaseReleaseIdle: 'stream-lease-release-idle.sql',
  streamLeaseRestore: 'stream-lease-restore.sql',
  streamQueryGet: 'stream-query-get.sql',
  streamQueryList: 'stream-query-list.sql',
  streamQueryLock: 'stream-query-lock.sql',
  streamQueryLockShared: 'stream-query-lock-shared.sql',
  streamQueryRegister: 'stream-query-register.sql',
  streamQueryUpdate: 'stream-query-update.sql',
  streamStateClear: 'stream-state-clear.sql',
  streamStateDelete: 'stream-state-delete.sql',
  streamStateGet: 'stream-state-get.sql',
  streamStateUpsert: 'stream-state-upsert.sql',
  systemStateRead: 'system-state-read.sql',
  systemStateWrite: 'system-state-write.sql',
  traceListByMessage: 'trace-list-by-message.sql',
  traceListByName: 'trace-list-by-name.sql',
  traceNames: 'trace-names.sql',
  traceRecord: 'trace-record.sql',
} as const

/** Name of a registered statement. */
export type QueryName = keyof typeof FILES

const REGISTRY = loadSqlRegistry(new URL('./', import.meta.url), FILES)

/** Every runtime statement (name and text), by name. */
export const STATEMENTS = REGISTRY.statements

/** Every runtime statement's SQL text, by name. */
export const SQL: Readonly<Record<QueryName, string>> = Object.freeze(
  Object.fromEntries(Object.entries(FILES).map(([name]) => [name, STATEMENTS[name as QueryName].text])) as Record<
    QueryName,
    string
  >,
)

/** The file each statement was read from (for the statement check test). */
export const QUERY_FILES: Readonly<Record<QueryName, string>> = REGISTRY.files
