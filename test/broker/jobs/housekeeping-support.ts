/**
 * Helpers of the maintenance-job tests: the jobs on a test broker's database, with their reports collected,
 * and SQL to age messages (instead of sleeping) and to read what is left.
 */
import pg from 'pg'
import pino from 'pino'
import type { TestBroker } from '../../support/broker.js'
import { databaseConnection } from '../../support/database.js'
import { trackResource } from '../../support/resources.js'
import type { BackgroundJob } from '../../../src/platform/jobs/background-loop.js'
import {
  housekeepingJobs,
  type JobRun,
  type HousekeepingJobOptions,
  type RetentionDeletion,
} from '../../../src/broker/jobs/housekeeping-jobs.js'

/** The production defaults of docs/configuration.md, "Background jobs and convergence". */
export const DEFAULT_JOBS_CONFIG: HousekeepingJobOptions['config'] = {
  retentionIntervalMs: 300_000,
  retentionBatchSize: 1000,
  partitionCleanupDays: 30,
  metricsRetentionDays: 90,
  evictionIntervalMs: 60_000,
  evictionBatchSize: 1000,
}

/** The two jobs and what they reported. */
export interface Maintenance {
  retention: BackgroundJob
  eviction: BackgroundJob
  deletions: RetentionDeletion[]
  runs: JobRun[]
  /** Messages deleted per kind since the last call (and forgets them). */
  drain(): Record<string, number>
  pool: pg.Pool
  close(): Promise<void>
}

/** Creates the housekeeping jobs on their own pool to the broker's database (never started: tests call runOnce). */
export function housekeepingFor(
  broker: TestBroker,
  config: Partial<HousekeepingJobOptions['config']> = {},
): Maintenance {
  const pool = new pg.Pool({ ...databaseConnection(broker.database), max: 3 })
  pool.on('error', () => undefined)
  const deletions: RetentionDeletion[] = []
  const runs: JobRun[] = []
  const untrack = trackResource(`maintenance pool on ${broker.database}`)
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' })
  const [retention, eviction] = housekeepingJobs({
    pool,
    config: { ...DEFAULT_JOBS_CONFIG, ...config },
    log,
    onDeleted: (deletion) => deletions.push(deletion),
    onRun: (run) => runs.push(run),
  })
  return {
    retention: retention!,
    eviction: eviction!,
    deletions,
    runs,
    pool,
    drain() {
      const totals: Record<string, number> = {}
      for (const deletion of deletions.splice(0))
        totals[deletion.kind] = (totals[deletion.kind] ?? 0) + deletion.deleted
      return totals
    },
    async close() {
      await pool.end()
      untrack()
    },
  }
}

/** Moves every message of a queue (or of one of its partitions) `seconds` into the past, keeping their order. */
export async function ageMessages(broker: TestBroker, queue: string, seconds: number, partition?: string) {
  await broker.db.query(
    `UPDATE queen.messages m SET created_at = m.created_at - make_interval(secs => $3)
     FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
     WHERE m.partition_id = p.id AND q.name = $1 AND ($2::text IS NULL OR p.name = $2)`,
    [queue, partition ?? null, seconds],
  )
}

/** The payload numbers `n` still stored in a queue's partition, in position order. */
export async function storedNumbers(broker: TestBroker, queue: string, partition: string): Promise<number[]> {
  const rows = await broker.db.query<{ n: number }>(
    `SELECT (m.payload->>'n')::integer AS n FROM queen.messages m
     JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id
     WHERE q.name = $1 AND p.name = $2 ORDER BY m.position`,
    [queue, partition],
  )
  return rows.rows.map((row) => row.n)
}

/** Cursor, head and lease of every consumer row of a queue, by partition name then group. */
export async function cursors(broker: TestBroker, queue: string) {
  const rows = await broker.db.query<{
    partition: string
    group: string
    cursor: number
    head: number
    lease: boolean
  }>(
    `SELECT p.name AS partition, c.consumer_group AS "group", c.cursor_position::integer AS cursor,
            (p.next_position - 1)::integer AS head, c.lease_id IS NOT NULL AS lease
     FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
     WHERE q.name = $1 ORDER BY p.name, c.consumer_group`,
    [queue],
  )
  return rows.rows
}

/** The retention-history rows of a queue, summed per kind. */
export async function history(broker: TestBroker, queue: string): Promise<Record<string, number>> {
  const rows = await broker.db.query<{ kind: string; deleted: number }>(
    `SELECT kind, sum(deleted)::integer AS deleted FROM queen.retention_history WHERE queue_name = $1 GROUP BY kind`,
    [queue],
  )
  return Object.fromEntries(rows.rows.map((row) => [row.kind, row.deleted]))
}
