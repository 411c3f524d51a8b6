/**
 * The retention cycle (docs/semantics.md, "Retention, eviction and cleanup", RETENTION_INTERVAL): expired retention,
 * completed retention, the purges of dedup entries past their window, of day-old expired-lease records and of
 * per-minute history past METRICS_RETENTION_DAYS, the repair of cursors left below emptied ranges, and the cleanup of
 * inactive partitions (PARTITION_CLEANUP_DAYS). One advisory try-lock ("QUEN", "RETN") per batch transaction elects the
 * replica that runs a cycle; batches of RETENTION_BATCH_SIZE loop until nothing is left or half the interval has
 * passed.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import {
  checkSetting,
  HousekeepingJob,
  deleteBatchResult,
  RETENTION_LOCK_KEY,
  runHousekeepingCycle,
  type DeleteRow,
  type HousekeepingJobOptions,
  type HousekeepingStep,
  type RetentionDeletion,
  type StepResult,
} from './housekeeping-cycle.js'

const JOB = 'retention'

/** A purge that returns one count: more to do while a batch was full. */
async function countBatch(
  client: pg.PoolClient,
  query: Parameters<typeof runQuery>[1],
  values: unknown[],
  limit: number,
) {
  const [row] = await runQuery<{ count: number }>(client, query, values)
  const count = row?.count ?? 0
  return { count, deletions: [], more: count >= limit, resumeFrom: null } satisfies StepResult
}

/** The steps of one retention cycle, in order. */
export function retentionSteps(batchSize: number, partitionCleanupDays: number, metricsRetentionDays: number) {
  const steps: HousekeepingStep[] = [
    {
      name: 'retention',
      batch: async (client, from) =>
        deleteBatchResult('retention', await runQuery<DeleteRow>(client, 'retentionExpired', [batchSize, from])),
    },
    {
      name: 'completed',
      batch: async (client, from) =>
        deleteBatchResult('completed', await runQuery<DeleteRow>(client, 'retentionCompleted', [batchSize, from])),
    },
    { name: 'dedup', batch: (client) => countBatch(client, 'dedupPurge', [batchSize], batchSize) },
    { name: 'leases', batch: (client) => countBatch(client, 'retentionPurgeLeases', [batchSize], batchSize) },
    {
      name: 'history',
      batch: (client) => countBatch(client, 'retentionPurgeHistory', [metricsRetentionDays, batchSize], batchSize),
    },
    { name: 'cursors', batch: (client) => countBatch(client, 'retentionRepairCursors', [batchSize], batchSize) },
    {
      name: 'partitions',
      batch: async (client) => {
        const rows = await runQuery<{ tenant: string; queue_name: string; deleted: number }>(
          client,
          'partitionCleanup',
          [partitionCleanupDays, batchSize],
        )
        const deletions = rows.map((row): RetentionDeletion => ({
          kind: 'partitions',
          tenant: row.tenant,
          queue: row.queue_name,
          deleted: row.deleted,
          deadLettered: 0,
        }))
        const count = deletions.reduce((sum, deletion) => sum + deletion.deleted, 0)
        return { count, deletions, more: count >= batchSize, resumeFrom: null }
      },
    },
  ]
  return steps
}

/** Creates the retention loop. */
export function retentionJob(options: HousekeepingJobOptions): HousekeepingJob {
  const { config } = options
  const batchSize = checkSetting(JOB, 'retentionBatchSize', config.retentionBatchSize, 1)
  const cleanupDays = checkSetting(JOB, 'partitionCleanupDays', config.partitionCleanupDays, 0)
  const metricsDays = checkSetting(JOB, 'metricsRetentionDays', config.metricsRetentionDays, 1)
  const intervalMs = config.retentionIntervalMs
  const log = options.log.child({ component: `jobs.${JOB}` })
  const steps = retentionSteps(batchSize, cleanupDays, metricsDays)
  return new HousekeepingJob(
    JOB,
    intervalMs,
    async (stopping) => {
      await runHousekeepingCycle({
        job: JOB,
        pool: options.pool,
        lockKey: RETENTION_LOCK_KEY,
        steps,
        budgetMs: intervalMs / 2,
        log,
        onDeleted: options.onDeleted,
        onRun: options.onRun,
        stopping,
      })
    },
    options.log,
  )
}
