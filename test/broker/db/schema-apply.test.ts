/**
 * Schema apply (docs/design.md, "Storage decisions"): the shipped `.sql` files applied in order under the advisory
 * lock, recorded in `queen.schema_ledger`, idempotent, with a dry run and a one-script rendering for DBAs. Every test
 * starts from an empty database of its own (no `queen` schema).
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { BROKER_SCHEMA, SCHEMA_LOCK_KEY } from '../../../src/broker/db/broker-schema.js'
import { applySchema, renderSchemaScript, verifySchema } from '../../../src/platform/postgres/schema-apply.js'
import { connect, createEmptyDatabase, dropDatabase, hasQueenSchema } from '../../support/cli-harness.js'

/** The schema files as shipped, read here independently of the code under test. */
const schemaDir = fileURLToPath(new URL('../../../src/broker/schema/', import.meta.url))
const shipped = readdirSync(schemaDir)
  .filter((name) => name.endsWith('.sql'))
  .sort()
  .map((name) => ({
    name,
    checksum: createHash('sha256')
      .update(readFileSync(`${schemaDir}${name}`, 'utf8'))
      .digest('hex'),
  }))
const shippedNames = shipped.map((file) => file.name)
const highestNumber = Math.max(...shippedNames.map((name) => Number.parseInt(name.slice(0, 3), 10)))

/** Runs `body` with an empty database and `count` connections to it; drops everything afterwards. */
async function withEmptyDatabase(
  label: string,
  count: number,
  body: (clients: pg.Client[], database: string) => Promise<void>,
): Promise<void> {
  const database = await createEmptyDatabase(label)
  const clients: pg.Client[] = []
  try {
    for (let i = 0; i < count; i++) clients.push(await connect(database))
    await body(clients, database)
  } finally {
    for (const client of clients) await client.end().catch(() => undefined)
    await dropDatabase(database)
  }
}

async function ledgerRows(client: pg.Client) {
  const result = await client.query<{ file_name: string; checksum: string; applied_at: Date; row_version: string }>(
    'SELECT file_name, checksum, applied_at, xmin::text AS row_version FROM queen.schema_ledger ORDER BY file_name',
  )
  return result.rows
}

describe('applySchema', () => {
  it('three applies started at once on an empty database all succeed and record each file once', async () => {
    await withEmptyDatabase('concurrent', 3, async (clients) => {
      // When three brokers boot at the same moment
      const results = await Promise.all(clients.map((client) => applySchema(client, BROKER_SCHEMA)))

      // Then all three succeed, each file is applied by exactly one of them and skipped by the others
      for (const result of results) {
        expect(result.version).toBe(highestNumber)
        expect(result.files.map((file) => file.name)).toEqual(shippedNames)
      }
      for (const name of shippedNames) {
        const statuses = results.map((result) => result.files.find((file) => file.name === name)?.status)
        expect(
          statuses.filter((status) => status === 'applied'),
          name,
        ).toHaveLength(1)
        expect(
          statuses.filter((status) => status === 'unchanged'),
          name,
        ).toHaveLength(2)
      }
      // And the ledger has one row per file with the file's checksum
      const rows = await ledgerRows(clients[0]!)
      expect(rows.map((row) => ({ name: row.file_name, checksum: row.checksum }))).toEqual(
        shipped.map((file) => ({ name: file.name, checksum: file.checksum })),
      )
      expect(await verifySchema(clients[0]!, BROKER_SCHEMA)).toEqual([])
    })
  })

  it('applying again reports every file unchanged and rewrites no ledger row', async () => {
    await withEmptyDatabase('again', 1, async ([client]) => {
      const first = await applySchema(client!, BROKER_SCHEMA)
      expect(first.files.map((file) => file.status)).toEqual(shippedNames.map(() => 'applied'))
      const before = await ledgerRows(client!)

      const second = await applySchema(client!, BROKER_SCHEMA)

      expect(second.files.map((file) => [file.name, file.status])).toEqual(
        shippedNames.map((name) => [name, 'unchanged']),
      )
      const after = await ledgerRows(client!)
      expect(after.map((row) => [row.file_name, row.applied_at.toISOString(), row.row_version])).toEqual(
        before.map((row) => [row.file_name, row.applied_at.toISOString(), row.row_version]),
      )
      expect(await verifySchema(client!, BROKER_SCHEMA)).toEqual([])
    })
  })

  it('a dry run on an empty database reports every file new and creates nothing', async () => {
    await withEmptyDatabase('dryrun', 1, async ([client], database) => {
      const result = await applySchema(client!, BROKER_SCHEMA, { dryRun: true })

      expect(result.version).toBe(highestNumber)
      expect(result.files.map((file) => [file.name, file.status])).toEqual(shippedNames.map((name) => [name, 'new']))
      expect(await hasQueenSchema(database)).toBe(false)
    })
  })

  it('gives up after lockTimeoutMs while another session holds the schema lock, naming the holder', async () => {
    await withEmptyDatabase('lock', 2, async ([holder, waiter], database) => {
      // Given a session (an operator's psql, another broker) holding the schema lock
      await holder!.query("SET application_name = 'lock-holder-under-test'")
      const holderPid = (await holder!.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
      await holder!.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK_KEY])

      // When a broker applies the schema with a short lock timeout
      const told: (string | undefined)[] = []
      const attempt = applySchema(waiter!, BROKER_SCHEMA, {
        lockTimeoutMs: 300,
        hooks: { onLockWait: (who) => told.push(who) },
      })

      // Then it fails, after telling who holds the lock, and applies nothing
      await expect(attempt).rejects.toThrow()
      expect(told).toHaveLength(1)
      expect(told[0]).toContain('lock-holder-under-test')
      expect(told[0]).toContain(String(holderPid))
      expect(await hasQueenSchema(database)).toBe(false)

      // And once the lock is released the same session applies the schema normally
      await holder!.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK_KEY])
      const result = await applySchema(waiter!, BROKER_SCHEMA, { lockTimeoutMs: 300 })
      expect(result.files.map((file) => file.status)).toEqual(shippedNames.map(() => 'applied'))
    })
  })
})

describe('renderSchemaScript', () => {
  it('run as one script on an empty database yields the same schema applySchema would', async () => {
    await withEmptyDatabase('script', 1, async ([client]) => {
      // When a DBA pipes the printed script into psql (here: one simple-protocol query)
      await client!.query(renderSchemaScript(BROKER_SCHEMA))

      // Then every expected object exists, the ledger carries every file's checksum
      expect(await verifySchema(client!, BROKER_SCHEMA)).toEqual([])
      const rows = await ledgerRows(client!)
      expect(rows.map((row) => ({ name: row.file_name, checksum: row.checksum }))).toEqual(
        shipped.map((file) => ({ name: file.name, checksum: file.checksum })),
      )
      // And a broker booting later finds nothing to do
      const result = await applySchema(client!, BROKER_SCHEMA)
      expect(result.files.map((file) => [file.name, file.status])).toEqual(
        shippedNames.map((name) => [name, 'unchanged']),
      )
    })
  })
})
