/**
 * The deleting maintenance jobs (docs/semantics.md, "Retention, eviction and cleanup") as background services, for the
 * server to start and stop with the others: the retention cycle and the eviction cycle. Counts reach metrics through
 * the callbacks: `onDeleted` per (batch, queue, kind) for `queen_retention_deleted_total` (and, with `deadLettered`,
 * `queen_messages_dead_lettered_total`), `onRun` per cycle for `queen_job_runs_total` and `queen_job_duration_seconds`.
 */
import type { BackgroundService } from '../../platform/jobs/background-loop.js'
import { evictionJob } from './eviction-job.js'
import type { MaintenanceJobOptions } from './maintenance-cycle.js'
import { retentionJob } from './retention-job.js'

export type {
  JobOutcome,
  JobRun,
  MaintenanceJobOptions,
  RetentionDeletion,
  RetentionKind,
} from './maintenance-cycle.js'

/** Creates the retention and eviction loops (not started). Throws on a bad setting. */
export function maintenanceJobs(options: MaintenanceJobOptions): BackgroundService[] {
  return [retentionJob(options), evictionJob(options)]
}
