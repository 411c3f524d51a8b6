/**
 * `queenctl db check` against databases of the test PostgreSQL server: one with the schema, an empty one,
 * a role without privileges and with synchronous_commit off, a connection through a TCP proxy (something
 * in between), too many replicas for max_connections, and a server that is not there.
 */
import { randomBytes } from 'node:crypto'
import net from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import DbCheck from '../../src/commands/db/check.js'
import { createEmptyDatabase, dropDatabase, pgEnv, pgUrl } from '../support/cli-harness.js'
import { createTestDatabase, dropTestDatabase, serverConnection } from '../support/database.js'
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js'
import { runCommand } from '../support/run-command.js'

let installed: string
let empty: string
let proxy: FaultProxy
const role = `queen_dbcheck_${randomBytes(3).toString('hex')}`

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(serverConnection())
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

beforeAll(async () => {
  installed = await createTestDatabase('db_check')
  empty = await createEmptyDatabase('db_check_empty')
  await admin(async (client) => {
    await client.query(`CREATE ROLE ${role} LOGIN PASSWORD 'limited'`)
    await client.query(`ALTER ROLE ${role} SET synchronous_commit = off`)
  })
  const { host, port } = serverConnection()
  proxy = await startFaultProxy({ host: host ?? '127.0.0.1', port: Number(port ?? 5432) })
})
afterAll(async () => {
  await proxy.close()
  await dropTestDatabase(installed)
  await dropDatabase(empty)
  await admin((client) => client.query(`DROP ROLE IF EXISTS ${role}`))
})

const check = (url: string, ...argv: string[]) =>
  runCommand(DbCheck, 'db:check', ['--pg-url', url, ...argv], { env: { DB_POOL_SIZE: undefined } })
const lines = (stdout: string) => stdout.split('\n').filter(Boolean)
const syncOn = (url: string) => `${url}?options=${encodeURIComponent('-c synchronous_commit=on')}`
const asRole = (database: string) => {
  const url = new URL(pgUrl(database))
  url.username = role
  url.password = 'limited'
  return url.href
}

describe('queenctl db check', () => {
  it('passes a database with the schema of this build, one line per requirement', async () => {
    // The test server runs with synchronous_commit off (speed); a production session has it on.
    const result = await check(syncOn(pgUrl(installed)), '--replicas', '2', '--pool-size', '5', '-o', 'table')
    expect(result.code, result.stdout).toBe(0)
    expect(result.stderr).toBe('')
    const { user, host, port } = serverConnection()
    const found = lines(result.stdout)
    expect(found[0]).toBe(`ok: connected to ${host}:${port}/${installed} as ${user}`)
    expect(found[1]).toMatch(/^ok: PostgreSQL 1\d[.\d]* .*\(14 or newer needed\)$/)
    expect(found[2]).toBe('ok: direct connection: session state holds across statements')
    expect(found[3]).toBe(`ok: ${user} owns schema queen (may apply the schema)`)
    expect(found[4]).toBe('ok: synchronous_commit is on')
    expect(found[5]).toMatch(
      /^ok: max_connections \d+ - \d+ reserved = \d+ available, needed 16 = 2 replicas x \(DB_POOL_SIZE 5 \+ 3\); \d+ in use now$/,
    )
    expect(found[6]).toMatch(/^ok: schema version \d+, this CLI \d+: the database has every schema file of this CLI$/)
    expect(found).toHaveLength(7)
  })

  it('prints the facts and findings as JSON, and fails too many replicas for max_connections (exit 1)', async () => {
    const result = await check(pgUrl(installed), '--replicas', '500', '-o', 'json')
    expect(result.code).toBe(1)
    const answer = JSON.parse(result.stdout)
    expect(answer.valid).toBe(false)
    expect(answer.facts).toMatchObject({ database: installed, neededConnections: 11_500, schemaState: 'current' })
    expect(answer.facts.maxConnections).toBeGreaterThan(0)
    const connections = answer.findings.find((finding: { check: string }) => finding.check === 'connections')
    expect(connections.level).toBe('error')
    expect(connections.message).toMatch(
      /needed 11500 = 500 replicas x \(DB_POOL_SIZE 20 \+ 3\).*: raise max_connections/,
    )
  })

  it('connects with the PG_* variables when no --pg-url is given, as serve does', async () => {
    const result = await runCommand(DbCheck, 'db:check', ['--replicas', '1', '-o', 'json'], {
      env: { ...pgEnv(installed), DB_POOL_SIZE: undefined },
    })
    expect(result.code, result.stdout).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: true, facts: { database: installed } })
  })

  it('reads DB_POOL_SIZE for the pool size', async () => {
    const result = await runCommand(
      DbCheck,
      'db:check',
      ['--pg-url', pgUrl(installed), '--replicas', '1', '-o', 'json'],
      {
        env: { DB_POOL_SIZE: '7' },
      },
    )
    expect(JSON.parse(result.stdout).facts.neededConnections).toBe(10)
  })

  it('warns about an empty database: the schema is not installed yet', async () => {
    const result = await check(pgUrl(empty), '--replicas', '1', '-o', 'table')
    expect(result.code, result.stdout).toBe(0)
    expect(lines(result.stdout)).toContain(
      'warning: schema version 0, this CLI ' +
        lines(result.stdout)
          .find((line) => line.includes('schema version'))!
          .match(/this CLI (\d+)/)![1] +
        ': no schema installed; run queenctl schema apply (or start queenctl serve)',
    )
    const { user } = serverConnection()
    expect(lines(result.stdout)).toContain(`ok: ${user} may create schema queen (CREATE on ${empty})`)
  })

  it('fails a role that may not use the schema and runs with synchronous_commit off', async () => {
    const result = await check(asRole(installed), '--replicas', '1', '-o', 'table')
    expect(result.code, result.stdout + result.stderr).toBe(1)
    const found = lines(result.stdout)
    expect(found).toContain(
      `error: ${role} may not read and write queen.messages: grant SELECT, INSERT, UPDATE, DELETE on schema queen`,
    )
    expect(found).toContain(
      'warning: synchronous_commit is off: a queued answer may not survive a PostgreSQL crash; keep it on in production',
    )
    expect(found).toContain('error: cannot read the schema ledger: permission denied for schema queen')
    expect(result.stderr).toBe(
      `queenctl: PostgreSQL at ${new URL(pgUrl(installed)).host}/${installed} does not meet 2 requirement(s) of the broker\n` +
        'hint: fix the errors above (docs/operations.md, "PostgreSQL requirements" lists the requirements)\n',
    )
    const fresh = await check(asRole(empty), '--replicas', '1', '-o', 'table')
    expect(lines(fresh.stdout)).toContain(
      `warning: ${role} may not create schema queen: set QUEEN_APPLY_SCHEMA=0 and have a DBA run queenctl schema apply`,
    )
  })

  it('warns when something sits between the CLI and PostgreSQL (a proxy on another port)', async () => {
    const url = new URL(pgUrl(installed))
    const serverPort = url.port
    url.host = `127.0.0.1:${proxy.port}`
    const result = await check(url.href, '--replicas', '1', '-o', 'table')
    expect(result.code, result.stdout).toBe(0)
    expect(lines(result.stdout)).toContain(
      `warning: connected on port ${proxy.port} but PostgreSQL listens on ${serverPort}: a proxy or pooler sits in between; it must run in session mode`,
    )
  })

  it('exits 2 naming the server when PostgreSQL cannot be reached, and 1 for a bad --pg-url', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo
        server.close(() => resolve(port))
      })
    })
    const result = await check(`postgres://queen:x@127.0.0.1:${closed}/queen`, '-o', 'table')
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr.split('\n')[0]).toMatch(
      new RegExp(`^queenctl: cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${closed}/queen: .*ECONNREFUSED`),
    )
    const bad = await check('not a url', '-o', 'table')
    expect(bad.code).toBe(1)
    expect(bad.stderr.split('\n')[0]).toBe('queenctl: --pg-url is not a valid URL')
  })
})
