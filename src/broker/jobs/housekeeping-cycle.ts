/**
 * What the deleting housekeeping jobs (retention, eviction; docs/semantics.md, "Retention, eviction and cleanup")
 * share: the per-cycle election by a PostgreSQL advisory try-lock, batches in their own transactions, the time budget
 * (half the interval), and the reports for metrics (`queen_job_runs_total`, `queen_retention_deleted_total`,
 * docs/operations.md, "Prometheus series"). The SQL is schema 010's.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import type { JobsConfig } from '../config/broker-config.js'
import { classifyPgError } from '../../platform/postgres/pg-errors.js'
import { inTransaction } from '../../platform/postgres/pool.js'
import { runQuery } from '../db/run-query.js'
import { retryOnConflict } from '../../platform/postgres/retry.js'
import { BackgroundLoop, type BackgroundJob } from '../../platform/jobs/background-loop.js'

/**
 * Advisory-lock keys, two-key form `(namespace, job)`: each is four ASCII letters read as a big-endian
 * 32-bit integer, so a DBA recognises them in `pg_locks` (classid = namespace, objid = job). The stats
 * refresh uses ("QUEN", "STAT") in schema 009.
 */
export const HOUSEKEEPING_LOCK_NAMESPACE = 0x5155454e // "QUEN" = 1364542798
/** The retention cycle: expired and completed retention, purges, cursor repair, partition cleanup. */
export const RETENTION_LOCK_KEY = 0x5245544e // "RETN" = 1380275278
/** The eviction cycle (maxWaitTimeSeconds). */
export const EVICTION_LOCK_KEY = 0x45564354 // "EVCT" = 1163281236

/** The `kind` label of `queen_retention_deleted_total` and of `queen.retention_history`. */
export type RetentionKind = 'retention' | 'completed' | 'eviction' | 'partitions'

/** What one batch deleted in one queue: messages, or partitions for kind `partitions`. */
export interface RetentionDeletion {
  kind: RetentionKind
  tenant: string
  queue: string
  deleted: number
  /** DLQ entries written before the delete (eviction with deadLetterQueue: true); 0 otherwise. */
  deadLettered: number
}

/** The `outcome` label of `queen_job_runs_total`. */
export type JobOutcome = 'ran' | 'skipped_lock' | 'error'

/** One cycle of one job, for `queen_job_runs_total` and `queen_job_duration_seconds`. */
export interface JobRun {
  job: string
  outcome: JobOutcome
  durationMs: number
}

/** What the housekeeping jobs need. */
export interface HousekeepingJobOptions {
  pool: pg.Pool
  /** `config.jobs` (only the fields below are read). */
  config: Pick<
    JobsConfig,
    | 'retentionIntervalMs'
    | 'retentionBatchSize'
    | 'partitionCleanupDays'
    | 'metricsRetentionDays'
    | 'evictionIntervalMs'
    | 'evictionBatchSize'
  >
  log: Logger
  /** Called for every (batch, queue, kind) that deleted something; observers must not throw. */
  onDeleted?: (deletion: RetentionDeletion) => void
  /** Called once per cycle with its outcome. */
  onRun?: (run: JobRun) => void
}

/** What one batch of a step did. */
export interface StepResult {
  /** Rows the step changed (messages, entries, cursors, partitions). */
  count: number
  deletions: RetentionDeletion[]
  /** True when the step has more to do in this cycle. */
  more: boolean
  /** Where the next batch starts (partition id), for the steps that page by partition. */
  resumeFrom: string | null
}

/** One step of a cycle: a batch function run inside the job's locked transaction. */
export interface HousekeepingStep {
  name: string
  batch(client: pg.PoolClient, resumeFrom: string | null): Promise<StepResult>
}

/** Result of one cycle. */
export interface CycleSummary {
  outcome: JobOutcome
  /** Rows changed per step. */
  counts: Record<string, number>
  /** True when the time budget ended a step before it was done. */
  cut: boolean
}

type Locked<T> = { acquired: true; value: T } | { acquired: false }

/** Runs `work` in one transaction that first takes the job's advisory try-lock; skips it when another session holds it. */
export async function withJobLock<T>(
  pool: pg.Pool,
  key: number,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<Locked<T>> {
  return inTransaction(pool, async (client): Promise<Locked<T>> => {
    const [row] = await runQuery<{ acquired: boolean }>(client, 'housekeepingTryLock', [
      HOUSEKEEPING_LOCK_NAMESPACE,
      key,
    ])
    if (!row?.acquired) return { acquired: false }
    return { acquired: true, value: await work(client) }
  })
}

/** Checks a batch size or day count at construction time (docs/conventions.md, "Background jobs"). */
export function checkSetting(job: string, name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new Error(`${job}: ${name} must be an integer >= ${min}`)
  return value
}

/** Shape of the rows of the message-deleting statements (queen.maintenance_delete). */
export interface DeleteRow {
  queue_id: string | null
  tenant: string | null
  queue_name: string | null
  deleted: number
  dead_lettered: number
  resume_from: string | null
}

/** Reads one batch of queen.maintenance_delete: rows per queue, then the resume row. */
export function deleteBatchResult(kind: RetentionKind, rows: DeleteRow[]): StepResult {
  const deletions: RetentionDeletion[] = []
  let resumeFrom: string | null = null
  for (const row of rows) {
    if (row.queue_id === null) {
      resumeFrom = row.resume_from
      continue
    }
    deletions.push({
      kind,
      tenant: row.tenant ?? '',
      queue: row.queue_name ?? '',
      deleted: row.deleted,
      deadLettered: row.dead_lettered,
    })
  }
  const count = deletions.reduce((sum, deletion) => sum + deletion.deleted, 0)
  return { count, deletions, more: resumeFrom !== null, resumeFrom }
}

/**
 * A housekeeping job: the background loop of background-loop.ts, plus a stop that ends the
 * running cycle after its current batch instead of waiting up to half an interval for it.
 */
export class HousekeepingJob implements BackgroundJob {
  readonly name: string
  private readonly loop: BackgroundLoop
  private stopping = false

  constructor(name: string, intervalMs: number, cycle: (stopping: () => boolean) => Promise<void>, log: Logger) {
    this.name = name
    this.loop = new BackgroundLoop(name, intervalMs, () => cycle(() => this.stopping), log)
  }

  start(): void {
    this.loop.start()
  }

  async stop(): Promise<void> {
    this.stopping = true
    try {
      await this.loop.stop()
    } finally {
      this.stopping = false
    }
  }

  runOnce(): Promise<void> {
    return this.loop.runOnce()
  }
}

/**
 * One cycle: every step runs at least one batch, then more while it has work and the budget lasts. Each
 * batch is its own transaction under the job's advisory try-lock; when the first batch does not get the
 * lock, another replica runs this cycle and this one skips it. A step that fails is logged and the next
 * one runs, except when PostgreSQL is unreachable: then the cycle ends and the error goes to the loop.
 */
export async function runHousekeepingCycle(args: {
  job: string
  pool: pg.Pool
  lockKey: number
  steps: HousekeepingStep[]
  budgetMs: number
  log: Logger
  onDeleted?: (deletion: RetentionDeletion) => void
  onRun?: (run: JobRun) => void
  /** True once the service is stopping: the cycle ends after its current batch (docs/operations.md, "Shutdown"). */
  stopping?: () => boolean
}): Promise<CycleSummary> {
  const started = Date.now()
  const deadline = started + args.budgetMs
  const counts: Record<string, number> = {}
  let acquired = false
  let failed = false
  let cut = false
  let stopped = false
  const finish = (outcome: JobOutcome): CycleSummary => {
    args.onRun?.({ job: args.job, outcome, durationMs: Date.now() - started })
    return { outcome, counts, cut }
  }

  steps: for (const step of args.steps) {
    counts[step.name] = 0
    let resumeFrom: string | null = null
    try {
      for (;;) {
        if (args.stopping?.()) {
          stopped = true
          break steps
        }
        const from: string | null = resumeFrom
        const result: Locked<StepResult> = await retryOnConflict(() =>
          withJobLock(args.pool, args.lockKey, (client) => step.batch(client, from)),
        )
        if (!result.acquired) {
          if (!acquired) {
            args.log.debug({ reason: 'another_instance_running' }, `${args.job} cycle skipped`)
            return finish('skipped_lock')
          }
          // Another replica took the lock between two batches: it carries on with this cycle.
          args.log.debug({ step: step.name }, `${args.job} cycle handed over`)
          break steps
        }
        acquired = true
        counts[step.name] = (counts[step.name] ?? 0) + result.value.count
        for (const deletion of result.value.deletions) {
          try {
            args.onDeleted?.(deletion)
          } catch {
            // Observers are best-effort.
          }
        }
        if (!result.value.more) break
        // A batch that changed nothing and would start where it started makes no progress: stop the step.
        if (result.value.count === 0 && result.value.resumeFrom === from) break
        resumeFrom = result.value.resumeFrom
        if (Date.now() >= deadline) {
          cut = true
          break
        }
      }
    } catch (error) {
      if (classifyPgError(error) === 'unavailable') {
        finish('error')
        throw error
      }
      failed = true
      args.log.error({ err: error, step: step.name }, `${args.job} step failed`)
    }
  }

  const ms = Date.now() - started
  if (stopped) {
    args.log.debug({ ...counts, ms }, `${args.job} cycle ended early: stopping`)
  } else if (cut) {
    args.log.warn({ ...counts, ms, budgetMs: args.budgetMs }, `${args.job} cycle cut at its time budget`)
  } else if (Object.values(counts).some((count) => count > 0)) {
    args.log.info({ ...counts, ms }, `${args.job} cycle`)
  }
  return finish(failed ? 'error' : 'ran')
}
