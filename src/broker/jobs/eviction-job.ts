/**
 * The eviction cycle (docs/semantics.md, "Retention, eviction and cleanup", EVICTION_INTERVAL): messages older than
 * their queue's maxWaitTimeSeconds that some known group (or no group at all) has not settled are deleted, after being
 * dead-lettered for each such group when the queue has deadLetterQueue: true; messages inside a live lease wait for the
 * lease to end. One advisory try-lock ("QUEN", "EVCT") per batch transaction elects the replica that runs a cycle;
 * batches of EVICTION_BATCH_SIZE loop until nothing is left or half the interval has passed.
 */
import { runQuery } from '../db/run-query.js'
import {
  checkSetting,
  HousekeepingJob,
  deleteBatchResult,
  EVICTION_LOCK_KEY,
  runHousekeepingCycle,
  type DeleteRow,
  type HousekeepingJobOptions,
  type HousekeepingStep,
} from './housekeeping-cycle.js'

const JOB = 'eviction'

/** Creates the eviction loop. */
export function evictionJob(options: HousekeepingJobOptions): HousekeepingJob {
  const { config } = options
  const batchSize = checkSetting(JOB, 'evictionBatchSize', config.evictionBatchSize, 1)
  const intervalMs = config.evictionIntervalMs
  const log = options.log.child({ component: `jobs.${JOB}` })
  const steps: HousekeepingStep[] = [
    {
      name: 'eviction',
      batch: async (client, from) =>
        deleteBatchResult('eviction', await runQuery<DeleteRow>(client, 'evictionRun', [batchSize, from])),
    },
  ]
  return new HousekeepingJob(
    JOB,
    intervalMs,
    async (stopping) => {
      await runHousekeepingCycle({
        job: JOB,
        pool: options.pool,
        lockKey: EVICTION_LOCK_KEY,
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
