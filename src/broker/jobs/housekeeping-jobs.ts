/**
 * The deleting housekeeping jobs (docs/semantics.md, "Retention, eviction and cleanup") as background jobs, for the
 * server to start and stop with the others: the retention cycle and the eviction cycle. Counts reach metrics through
 * the callbacks: `onDeleted` per (batch, queue, kind) for `queen_retention_deleted_total` (and, with `deadLettered`,
 * `queen_messages_dead_lettered_total`), `onRun` per cycle for `queen_job_runs_total` and `queen_job_duration_seconds`.
 */
import type { BackgroundJob } from '../../platform/jobs/background-loop.js'
import { evictionJob } from './eviction-job.js'
import type { HousekeepingJobOptions } from './housekeeping-cycle.js'
import { retentionJob } from './retention-job.js'

export type {
  JobOutcome,
  JobRun,
  HousekeepingJobOptions,
  RetentionDeletion,
  RetentionKind,
} from './housekeeping-cycle.js'

/** Creates the retention and eviction loops (not started). Throws on a bad setting. */
export function housekeepingJobs(options: HousekeepingJobOptions): BackgroundJob[] {
  return [retentionJob(options), evictionJob(options)]
}
