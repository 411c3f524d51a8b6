/**
 * `queenctl schema status` against databases of the test server: one with the schema of this build, an
 * empty one, one missing a file, and one set up by a newer build.
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import SchemaStatusCommand from '../../src/commands/schema/status.js'
import { connect, createEmptyDatabase, dropDatabase, pgEnv, pgUrl, runCli } from '../support/cli-harness.js'
import { createTestDatabase, dropTestDatabase } from '../support/database.js'
import { runCommand } from '../support/run-command.js'

const shipped = readdirSync(fileURLToPath(new URL('../../src/broker/schema/', import.meta.url)))
  .filter((name) => /^\d{3}_[a-z0-9_]+\.sql$/.test(name))
  .sort()
const version = Math.max(...shipped.map((name) => Number.parseInt(name.slice(0, 3), 10)))
const last = shipped[shipped.length - 1]!

let installed: string
let empty: string

beforeAll(async () => {
  installed = await createTestDatabase('schema_status')
  empty = await createEmptyDatabase('schema_status_empty')
})
afterAll(async () => {
  await dropTestDatabase(installed)
  await dropDatabase(empty)
})

const status = (database: string, ...argv: string[]) =>
  runCommand(SchemaStatusCommand, 'schema:status', ['--pg-url', pgUrl(database), ...argv])

describe('queenctl schema status', () => {
  it('reports a database with the schema of this build as current', async () => {
    expect(await status(installed, '-o', 'table')).toEqual({
      code: 0,
      stderr: '',
      stdout: `installed: ${version}\ncli: ${version}\nstate: current\nadvice: the database has every schema file of this CLI\n`,
    })
  })

  it('reports an empty database as not installed, every file new', async () => {
    const result = await status(empty, '-o', 'json')
    expect(result.code, result.stderr).toBe(0)
    const answer = JSON.parse(result.stdout)
    expect(answer).toMatchObject({ installedVersion: 0, requiredVersion: version, state: 'not installed' })
    expect(answer.files).toEqual(shipped.map((name) => ({ name, status: 'new' })))
  })

  it('names the files to apply when one is missing or changed, and a newer database as ahead', async () => {
    const client = await connect(installed)
    try {
      await client.query('DELETE FROM queen.schema_ledger WHERE file_name = $1', [last])
      await client.query("UPDATE queen.schema_ledger SET checksum = 'edited' WHERE file_name = $1", [shipped[0]])
      const pending = await status(installed, '-o', 'table')
      expect(pending.stdout).toContain(`state: pending\ntoApply:\n  - ${shipped[0]} (changed)\n  - ${last} (new)\n`)
      expect(pending.stdout).toContain('advice: run queenctl schema apply to install the files above\n')
      await client.query(
        "INSERT INTO queen.schema_ledger (file_name, file_number, checksum) VALUES ('999_future.sql', 999, 'x')",
      )
      const ahead = JSON.parse((await status(installed, '-o', 'json')).stdout)
      expect(ahead).toMatchObject({ installedVersion: 999, state: 'ahead' })
    } finally {
      await client.end()
    }
  })

  it("reads PG_* by the broker's own variable table: every variable the broker honours, checked the same way", async () => {
    const viaEnv = await runCli(['schema', 'status', '-o', 'json'], { env: pgEnv(empty) })
    expect(viaEnv.code, viaEnv.stderr).toBe(0)
    expect(JSON.parse(viaEnv.stdout)).toMatchObject({ state: 'not installed' })
    // A value the broker would refuse is refused here, naming the variable.
    const badPort = await runCli(['schema', 'status'], { env: { ...pgEnv(installed), PG_PORT: 'five' } })
    expect(badPort.code).toBe(1)
    expect(badPort.stderr).toMatch(/PG_PORT="five" is not an integer/)
    // PG_SSL_CA is honoured (it was ignored): an unreadable CA file is named before any connection.
    const badCa = await runCli(['schema', 'status'], {
      env: { ...pgEnv(installed), PG_USE_SSL: 'true', PG_SSL_CA: '/nonexistent/ca.pem' },
    })
    expect(badCa.code).toBe(1)
    expect(badCa.stderr).toMatch(/PG_SSL_CA="\/nonexistent\/ca.pem" cannot be read \(ENOENT\)/)
  })

  it('exits 2 when PostgreSQL cannot be reached', async () => {
    const result = await runCommand(SchemaStatusCommand, 'schema:status', [
      '--pg-url',
      'postgres://nobody:x@127.0.0.1:1/none',
      '-o',
      'table',
    ])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^queenctl: cannot connect to PostgreSQL: .*ECONNREFUSED/)
  })
})
