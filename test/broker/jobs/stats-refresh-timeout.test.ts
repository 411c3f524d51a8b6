/**
 * The first stats refresh of a database recomputes every partition, which can take longer than
 * DB_STATEMENT_TIMEOUT: it runs with its own longer deadline (jobs/stats-refresh-job.ts), so a large database
 * gets a snapshot instead of failing the same way at every cycle. A real `queenctl serve` with a 100 ms
 * statement timeout, over 5,000 partitions pushed directly in PostgreSQL.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import pg from 'pg'
import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { http } from '../../support/broker.js'
import type { TestProcess } from '../../support/cli-harness.js'
import { createTestDatabase, databaseConnection, dropTestDatabase } from '../../support/database.js'
import { startServe } from '../../support/serve-process.js'

const PARTITIONS = 5000
let database: string
let spool: string
let broker: { process: TestProcess; url: string } | undefined

beforeAll(async () => {
  database = await createTestDatabase('stats_timeout')
  spool = await mkdtemp('/tmp/queenctl-stats-timeout-spool-')
  const db = new pg.Client(databaseConnection(database))
  await db.connect()
  try {
    const items = Array.from({ length: PARTITIONS }, (_, i) => ({
      i,
      q: 'wide',
      p: `p${i}`,
      id: randomUUID(),
      tx: `t${i}`,
      pl: {},
    }))
    await db.query(`SELECT count(*) FROM queen.push_messages('', $1::jsonb)`, [JSON.stringify(items)])
  } finally {
    await db.end()
  }
  broker = await startServe({
    pgPort: inject('pgConnection').port,
    database,
    spool,
    env: { DB_STATEMENT_TIMEOUT: '100', STATS_INTERVAL_MS: '3600000' },
  })
})
afterAll(async () => {
  await broker?.process.kill()
  await dropTestDatabase(database)
  await rm(spool, { recursive: true, force: true })
})

it('completes a first refresh over thousands of partitions although it outlasts DB_STATEMENT_TIMEOUT', async () => {
  const began = Date.now()
  const answer = await http(broker!, 'POST', '/api/v1/stats/refresh')
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  expect(answer.body.partition).toBe(PARTITIONS)
  // It did outlast the statement timeout, or this test would prove nothing.
  expect(Date.now() - began).toBeGreaterThan(100)
  // The snapshot exists: the queue's row counts every message as pending.
  const db = new pg.Client(databaseConnection(database))
  await db.connect()
  try {
    const row = await db.query(
      `SELECT s.pending::int AS pending FROM queen.stats_snapshot s JOIN queen.queues q ON q.id = s.queue_id
       WHERE s.level = 'queue' AND q.name = 'wide'`,
    )
    expect(row.rows).toEqual([{ pending: PARTITIONS }])
  } finally {
    await db.end()
  }
})
