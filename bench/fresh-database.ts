/**
 * The `--fresh-db` run (issue 39; docs/design.md, "Plans that do not depend on statistics"): the broker started on a
 * new database and measured in its first seconds, before PostgreSQL has analyzed any of its tables, then again
 * right after an ANALYZE. The bench's own scenarios analyze before every window, which hides a plan that is only
 * good with statistics; this run is where such a plan shows.
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { startBrokerProcess } from './broker-process.js'
import { closedLoop, HttpClient } from './load.js'
import type { BenchPostgres } from './postgres.js'

/** One push shape of the run, as the push-1 and push-100 scenarios send it. */
interface FreshShape {
  id: 'push-1' | 'push-100'
  clients: number
  batch: number
}

const SHAPES: readonly FreshShape[] = [
  { id: 'push-1', clients: 32, batch: 1 },
  { id: 'push-100', clients: 8, batch: 100 },
]
const PARTITIONS = 16

/** What one shape measured. */
export interface FreshDatabaseResult {
  id: FreshShape['id']
  /** Messages per second over the first window on the new database, and per second within it. */
  fresh: number
  freshPerSecond: number[]
  /** Messages per second over the same window right after `ANALYZE`. */
  analyzed: number
  /** fresh / analyzed. */
  ratio: number
}

/** The target of issue 39: the first seconds within 20 % of the rate after ANALYZE. */
export const FRESH_RATIO_TARGET = 0.8

/** Pushes `shape` for `seconds`, returning the messages accepted in each second. */
async function pushFor(url: string, shape: FreshShape, seconds: number): Promise<number[]> {
  const client = new HttpClient(url, shape.clients)
  const perSecond: number[] = []
  let current = 0
  let sequence = 0
  const tick = setInterval(() => {
    perSecond.push(current)
    current = 0
  }, 1000)
  const until = Date.now() + seconds * 1000
  try {
    await closedLoop(
      shape.clients,
      () => Date.now() < until,
      async () => {
        const items = Array.from({ length: shape.batch }, () => ({
          queue: 'fresh',
          partition: `p${sequence++ % PARTITIONS}`,
          transactionId: randomUUID(),
          payload: { sequence, pad: 'x'.repeat(150) },
        }))
        const answer = await client.request('POST', '/api/v1/push', { items })
        if (!Array.isArray(answer.body)) {
          throw new Error(`push: HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)
        }
        current += shape.batch
      },
    )
  } finally {
    clearInterval(tick)
    await client.close()
  }
  return perSecond.slice(0, seconds)
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : Math.round(values.reduce((sum, value) => sum + value, 0) / values.length)
}

/** Runs one shape on a database of its own, dropped at the end. */
async function runShape(
  pgServer: BenchPostgres,
  shape: FreshShape,
  seconds: number,
  log: (line: string) => void,
): Promise<FreshDatabaseResult> {
  const database = `queen_fresh_${shape.id.replace('-', '_')}_${Date.now()}`
  const admin = new pg.Client(pgServer.connection)
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${database}`)
    const broker = await startBrokerProcess(pgServer, { extraEnv: { PG_DATABASE: database } })
    const own = new pg.Client({ ...pgServer.connection, database })
    await own.connect()
    try {
      // No statistics arrive inside the window: autovacuum (10 s naptime on the bench server) would otherwise
      // analyze the growing tables a few seconds in, as it does not on a busy cluster of many databases.
      await own.query(`DO $$ DECLARE t record; BEGIN
        FOR t IN SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = 'queen' AND c.relkind = 'r' LOOP
          EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = false)', t.name);
        END LOOP; END $$`)
      const freshPerSecond = await pushFor(broker.url, shape, seconds)
      await own.query('ANALYZE')
      const analyzedPerSecond = await pushFor(broker.url, shape, seconds)
      const fresh = mean(freshPerSecond)
      const analyzed = mean(analyzedPerSecond)
      log(`fresh database ${shape.id}: ${fresh} msg/s before ANALYZE, ${analyzed} after`)
      return { id: shape.id, fresh, freshPerSecond, analyzed, ratio: analyzed > 0 ? fresh / analyzed : 0 }
    } finally {
      await own.end()
      await broker.stop()
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined)
    await admin.end()
  }
}

/** Both shapes, each on a new database with a broker of its own. */
export async function runFreshDatabase(
  pgServer: BenchPostgres,
  seconds: number,
  log: (line: string) => void,
): Promise<FreshDatabaseResult[]> {
  const results: FreshDatabaseResult[] = []
  for (const shape of SHAPES) results.push(await runShape(pgServer, shape, seconds, log))
  return results
}

/** The report's line for one result. */
export function freshDatabaseNote(result: FreshDatabaseResult): string {
  const verdict = result.ratio >= FRESH_RATIO_TARGET ? 'pass' : 'FAIL'
  return (
    `fresh database (${result.id}): first window ${result.fresh} msg/s without ANALYZE ` +
    `(per second ${result.freshPerSecond.join(', ')}), ${result.analyzed} msg/s after ANALYZE; ` +
    `ratio ${result.ratio.toFixed(2)} (target >= ${FRESH_RATIO_TARGET}: ${verdict})`
  )
}
