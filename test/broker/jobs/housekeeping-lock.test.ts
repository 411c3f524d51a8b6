// The per-cycle election of the housekeeping jobs (docs/semantics.md, "Retention, eviction and cleanup",
// docs/conventions.md, "Background jobs"): an advisory try-lock per batch transaction; a replica that does not get
// it skips the cycle. Plus construction-time validation.
import pg from 'pg'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../../support/broker.js'
import { databaseConnection } from '../../support/database.js'
import { configure, pushMany, sleep } from '../../support/queen.js'
import { cycleEvents } from '../../../src/platform/jobs/background-loop.js'
import {
  EVICTION_LOCK_KEY,
  HOUSEKEEPING_LOCK_NAMESPACE,
  RETENTION_LOCK_KEY,
} from '../../../src/broker/jobs/housekeeping-cycle.js'
import { housekeepingJobs } from '../../../src/broker/jobs/housekeeping-jobs.js'
import { ageMessages, DEFAULT_JOBS_CONFIG, housekeepingFor, storedNumbers } from './housekeeping-support.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'maintenance_lock' })
})
afterAll(async () => {
  await broker.close()
})

async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(databaseConnection(broker.database))
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

describe('advisory lock per cycle', () => {
  it('documents its keys as ASCII', () => {
    const ascii = (key: number) => Buffer.from(key.toString(16), 'hex').toString('latin1')
    expect([HOUSEKEEPING_LOCK_NAMESPACE, RETENTION_LOCK_KEY, EVICTION_LOCK_KEY].map(ascii)).toEqual([
      'QUEN',
      'RETN',
      'EVCT',
    ])
  })

  it('skips the cycle while another session holds the job lock, and runs once it is free', async () => {
    const jobs = housekeepingFor(broker)
    try {
      const queue = 'lock-held'
      await configure(broker, queue, { retentionEnabled: true, retentionSeconds: 10, maxWaitTimeSeconds: 3600 })
      await pushMany(broker, queue, 'p', 3)
      await ageMessages(broker, queue, 60)
      await withClient(async (client) => {
        await client.query('BEGIN')
        await client.query('SELECT pg_advisory_xact_lock($1, $2)', [HOUSEKEEPING_LOCK_NAMESPACE, RETENTION_LOCK_KEY])
        await jobs.retention.runOnce()
        // The eviction job has its own key.
        await jobs.eviction.runOnce()
        expect(jobs.runs.map((run) => [run.job, run.outcome])).toEqual([
          ['retention', 'skipped_lock'],
          ['eviction', 'ran'],
        ])
        expect(await storedNumbers(broker, queue, 'p')).toEqual([0, 1, 2])
        await client.query('COMMIT')
      })
      await jobs.retention.runOnce()
      expect(jobs.runs.at(-1)).toMatchObject({ job: 'retention', outcome: 'ran' })
      expect(await storedNumbers(broker, queue, 'p')).toEqual([])
    } finally {
      await jobs.close()
    }
  })

  it('two replicas (two pools) running the same cycle at once: one runs it, the other skips', async () => {
    const first = housekeepingFor(broker)
    const second = housekeepingFor(broker)
    try {
      const queue = 'lock-race'
      await configure(broker, queue, { maxWaitTimeSeconds: 5 })
      await pushMany(broker, queue, 'p', 4)
      await ageMessages(broker, queue, 60)
      await withClient(async (blocker) => {
        // A running ack holds the partition's consumer row: the first replica's batch waits for it while
        // holding the eviction lock.
        await blocker.query('BEGIN')
        await blocker.query(
          `INSERT INTO queen.consumers (partition_id, consumer_group, queue_id)
           SELECT p.id, 'blocker', p.queue_id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
           WHERE q.name = $1 AND p.name = 'p'`,
          [queue],
        )
        await blocker.query('COMMIT')
        await blocker.query('BEGIN')
        await blocker.query(`SELECT 1 FROM queen.consumers WHERE consumer_group = 'blocker' FOR UPDATE`)
        const running = first.eviction.runOnce()
        for (let attempt = 0; ; attempt++) {
          const held = await blocker.query(
            `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2`,
            [HOUSEKEEPING_LOCK_NAMESPACE, EVICTION_LOCK_KEY],
          )
          if (held.rowCount) break
          expect(attempt).toBeLessThan(200)
          await sleep(10)
        }
        await second.eviction.runOnce()
        expect(second.runs).toEqual([expect.objectContaining({ job: 'eviction', outcome: 'skipped_lock' })])
        expect(await storedNumbers(broker, queue, 'p')).toEqual([0, 1, 2, 3])
        await blocker.query('ROLLBACK')
        await running
      })
      expect(first.runs).toEqual([expect.objectContaining({ job: 'eviction', outcome: 'ran' })])
      expect(first.drain()).toEqual({ eviction: 4 })
      expect(await storedNumbers(broker, queue, 'p')).toEqual([])
    } finally {
      await first.close()
      await second.close()
    }
  })

  it('stop() ends a running cycle after its current batch', async () => {
    const jobs = housekeepingFor(broker, { evictionIntervalMs: 5, evictionBatchSize: 1 })
    try {
      const queue = 'lock-stop'
      await configure(broker, queue, { maxWaitTimeSeconds: 5 })
      await pushMany(broker, queue, 'p', 3)
      await ageMessages(broker, queue, 60)
      await withClient(async (blocker) => {
        await blocker.query(
          `INSERT INTO queen.consumers (partition_id, consumer_group, queue_id)
           SELECT p.id, 'blocker', p.queue_id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
           WHERE q.name = $1 AND p.name = 'p'`,
          [queue],
        )
        await blocker.query('BEGIN')
        await blocker.query(
          `SELECT 1 FROM queen.consumers c JOIN queen.queues q ON q.id = c.queue_id
           WHERE q.name = $1 AND c.consumer_group = 'blocker' FOR UPDATE OF c`,
          [queue],
        )
        jobs.eviction.start()
        for (let attempt = 0; ; attempt++) {
          const held = await blocker.query(
            `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2`,
            [HOUSEKEEPING_LOCK_NAMESPACE, EVICTION_LOCK_KEY],
          )
          if (held.rowCount) break
          expect(attempt).toBeLessThan(200)
          await sleep(10)
        }
        const stopped = jobs.eviction.stop()
        await blocker.query('ROLLBACK')
        await stopped
      })
      // The blocked batch finished (one message); the cycle then ended instead of taking the other two.
      expect(jobs.runs).toEqual([expect.objectContaining({ job: 'eviction', outcome: 'ran' })])
      expect(await storedNumbers(broker, queue, 'p')).toEqual([1, 2])
    } finally {
      await jobs.eviction.stop()
      await jobs.close()
    }
  })

  it('announces the end of every cycle on cycleEvents', async () => {
    const jobs = housekeepingFor(broker)
    const seen: string[] = []
    const listener = (name: string) => seen.push(name)
    cycleEvents.on('cycle', listener)
    try {
      await jobs.retention.runOnce()
      await jobs.eviction.runOnce()
      expect(seen).toEqual(['retention', 'eviction'])
    } finally {
      cycleEvents.off('cycle', listener)
      await jobs.close()
    }
  })
})

describe('construction', () => {
  it('rejects bad settings at construction, not at the first cycle', () => {
    const pool = {} as pg.Pool
    const log = pino({ level: 'silent' })
    const make = (config: Partial<typeof DEFAULT_JOBS_CONFIG>) =>
      housekeepingJobs({ pool, log, config: { ...DEFAULT_JOBS_CONFIG, ...config } })
    expect(make({}).map((job) => job.name)).toEqual(['retention', 'eviction'])
    expect(make({ partitionCleanupDays: 0 })).toHaveLength(2)
    expect(() => make({ retentionBatchSize: 0 })).toThrow(/retentionBatchSize/)
    expect(() => make({ evictionBatchSize: 1.5 })).toThrow(/evictionBatchSize/)
    expect(() => make({ partitionCleanupDays: -1 })).toThrow(/partitionCleanupDays/)
    expect(() => make({ metricsRetentionDays: 0 })).toThrow(/metricsRetentionDays/)
    expect(() => make({ retentionIntervalMs: 0 })).toThrow(/interval/)
    expect(() => make({ evictionIntervalMs: Number.NaN })).toThrow(/interval/)
  })
})
