// A stats refresh aborted at shutdown (the stats loop's signal) is cancelled in PostgreSQL, rejects with the
// abort, and its connection is closed rather than handed back to the pool; an abort that comes after the
// refresh has ended changes nothing.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refreshStatsSnapshot } from '../../../src/broker/jobs/stats-refresh-job.js'
import { createTestDatabase, databaseConnection, dropTestDatabase } from '../../support/database.js'
import { statsRefreshPids, until } from '../../support/poll.js'

let database: string
let blocker: pg.Client
let observer: pg.Client
beforeAll(async () => {
  database = await createTestDatabase('stats_refresh_cancel')
  blocker = new pg.Client(databaseConnection(database))
  observer = new pg.Client(databaseConnection(database))
  await blocker.connect()
  await observer.connect()
})
afterAll(async () => {
  await blocker.end()
  await observer.end()
  await dropTestDatabase(database)
})

/** A small pool of its own, so its connection count shows whether a connection was closed. */
function smallPool(): pg.Pool {
  return new pg.Pool({ ...databaseConnection(database), max: 2 })
}

async function backendPid(pool: pg.Pool): Promise<number> {
  const client = await pool.connect()
  try {
    return (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
  } finally {
    client.release()
  }
}

async function connected(pid: number): Promise<boolean> {
  const result = await observer.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])
  return result.rowCount === 1
}

describe('refreshStatsSnapshot with an abort signal', () => {
  it('cancels the running refresh, rejects with the abort and closes its connection', async () => {
    const pool = smallPool()
    try {
      // A first refresh writes the horizon row, which every refresh writes last: holding it keeps the next
      // one running, as a refresh of a large database would be.
      const first = await refreshStatsSnapshot(pool)
      expect(first.skipped).toBe(false)
      await blocker.query('BEGIN')
      await blocker.query('SELECT * FROM queen.stats_refresh_state FOR UPDATE')

      const stop = new AbortController()
      const refreshing = refreshStatsSnapshot(pool, stop.signal)
      const outcome = refreshing.then(
        () => 'finished',
        (error: unknown) => error,
      )
      let running: number[] = []
      await until(
        'the refresh to wait on the held row',
        async () => (running = await statsRefreshPids(observer)).length === 1,
      )
      const reason = new Error('shutting down')
      stop.abort(reason)
      expect(await outcome).toBe(reason)
      await until('the refresh to end in PostgreSQL', async () => (await statsRefreshPids(observer)).length === 0)
      await blocker.query('ROLLBACK')

      // Its connection was closed, not handed back to the pool; the pool goes on with others.
      await until('the cancelled connection to close', async () => !(await connected(running[0]!)))
      expect(await backendPid(pool)).not.toBe(running[0])
      const later = await refreshStatsSnapshot(pool)
      expect(later.skipped).toBe(false)
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined)
      await pool.end()
    }
  })

  it('leaves a finished refresh and its connection alone when the abort comes after it', async () => {
    const pool = smallPool()
    try {
      const stop = new AbortController()
      const result = await refreshStatsSnapshot(pool, stop.signal)
      expect(result.skipped).toBe(false)
      const pid = await backendPid(pool)
      stop.abort(new Error('shutting down'))
      // Kept and usable: the same backend answers, and no cancel reached it.
      await new Promise((resolve) => setTimeout(resolve, 700))
      expect(await backendPid(pool)).toBe(pid)
      expect(pool.totalCount).toBe(1)
    } finally {
      await pool.end()
    }
  })
})
