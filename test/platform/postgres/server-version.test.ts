/**
 * The oldest PostgreSQL the broker runs on (src/platform/postgres/server-version.ts; docs/operations.md, "PostgreSQL
 * requirements"): the decision on version numbers as servers report them, and `queenctl serve` at boot against a real
 * server, which it accepts, and against a database of that server made to report 13.16, which it refuses, at boot or
 * when the server comes back after being unreachable at boot.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { afterAll, describe, expect, it } from 'vitest'
import {
  MINIMUM_POSTGRES_MAJOR,
  readServerFacts,
  serverVersionProblem,
} from '../../../src/platform/postgres/server-version.js'
import { connect, createEmptyDatabase, dropDatabase, pgEnv, startCli } from '../../support/cli-harness.js'
import { serverConnection } from '../../support/database.js'
import { startFaultProxy } from '../../support/fault-proxy.js'

const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

async function emptyDatabase(label: string): Promise<string> {
  const database = await createEmptyDatabase(label)
  cleanups.push(() => dropDatabase(database))
  return database
}

async function spoolDir(): Promise<string> {
  const dir = await mkdtemp('/tmp/queenctl-version-spool-')
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** What the test server says of itself. */
async function testServerFacts(database: string) {
  const client = await connect(database)
  try {
    return await readServerFacts(client)
  } finally {
    await client.end()
  }
}

/**
 * An empty database of the test server that reports PostgreSQL 13.16. A real server cannot be made older, but what it
 * reports can be: the broker reads current_setting(), and a function of that name in a schema searched before
 * pg_catalog answers in its place, on this database only.
 */
async function databaseReporting13(label: string): Promise<string> {
  const database = await emptyDatabase(label)
  const client = await connect(database)
  try {
    await client.query('CREATE SCHEMA reported')
    await client.query(`
      CREATE FUNCTION reported.current_setting(name text) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT CASE name WHEN 'server_version' THEN '13.16' WHEN 'server_version_num' THEN '130016'
               ELSE pg_catalog.current_setting(name) END
      $$`)
    await client.query(`ALTER DATABASE ${database} SET search_path = reported, pg_catalog, public`)
  } finally {
    await client.end()
  }
  return database
}

/** Whether `database` has the broker's schema. */
async function hasSchema(database: string): Promise<boolean> {
  const client = await connect(database)
  try {
    const queen = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = 'queen'")
    return queen.rowCount === 1
  } finally {
    await client.end()
  }
}

/** `queenctl serve` on `database` of the test server, its spool in a folder of its own. */
async function serve(database: string, env: Record<string, string> = {}) {
  return startCli(['serve'], {
    env: {
      ...pgEnv(database),
      PORT: '0',
      HOST: '127.0.0.1',
      FILE_BUFFER_DIR: await spoolDir(),
      LOG_LEVEL: 'info',
      ...env,
    },
  })
}

describe('the minimum PostgreSQL version', () => {
  it('refuses a 13.x or 9.6 server, naming its version and the minimum, and accepts 14.0, 15.x and 17.x', () => {
    // `server_version` and `server_version_num` as those releases report them.
    expect(serverVersionProblem({ version: '13.16 (Debian 13.16-0+deb11u1)', versionNum: 130016 })).toBe(
      'PostgreSQL 13.16 (Debian 13.16-0+deb11u1) is too old: 14 or newer is required',
    )
    expect(serverVersionProblem({ version: '9.6.24', versionNum: 90624 })).toBe(
      'PostgreSQL 9.6.24 is too old: 14 or newer is required',
    )
    expect(serverVersionProblem({ version: '14.0', versionNum: 140000 })).toBeUndefined()
    expect(serverVersionProblem({ version: '15.18 (Debian 15.18-0+deb12u1)', versionNum: 150018 })).toBeUndefined()
    expect(serverVersionProblem({ version: '17.10', versionNum: 170010 })).toBeUndefined()
  })

  it('lets serve boot on the test server, logging the version it read there', async () => {
    const database = await emptyDatabase('version_ok')
    const facts = await testServerFacts(database)
    expect(Math.floor(facts.versionNum / 10_000)).toBeGreaterThanOrEqual(MINIMUM_POSTGRES_MAJOR)
    const broker = await serve(database)
    try {
      await broker.waitFor(/\blistening\b/, 60_000)
      expect(broker.output()).toContain(facts.version)
      expect(broker.output()).not.toContain('too old')
    } finally {
      await broker.kill()
    }
  })

  it('stops serve at boot, before any schema is applied, on a server that reports 13.16', async () => {
    const database = await databaseReporting13('version_old')
    const broker = await serve(database)
    try {
      const exit = await broker.exited(60_000)
      expect(exit.code).toBe(1)
      expect(broker.output()).toContain('PostgreSQL 13.16 is too old: 14 or newer is required (PG_HOST=')
      expect(broker.output()).not.toMatch(/\blistening\b/)
    } finally {
      await broker.kill()
    }
    expect(await hasSchema(database)).toBe(false)
  })

  it('checks the version of a server unreachable at boot when it comes back, and never becomes ready on 13.16', async () => {
    const database = await databaseReporting13('version_late')
    const { host, port } = serverConnection()
    const proxy = await startFaultProxy({ host: host ?? '127.0.0.1', port: port ?? 5432 })
    proxy.setMode('refuse')
    const broker = await serve(database, { PG_PORT: String(proxy.port), DB_CONNECTION_TIMEOUT: '1000' })
    try {
      const listening = await broker.waitFor(/\blistening\b.*\bhttp=([\d.]+):(\d+)/, 60_000)
      const health = `http://${listening[1]}:${listening[2]}/health`
      proxy.setMode('pass')
      await broker.waitFor(/PostgreSQL 13\.16 is too old: 14 or newer is required/, 30_000)
      expect((await fetch(health)).status).toBe(503)
      expect(await hasSchema(database)).toBe(false)
    } finally {
      await broker.kill()
      await proxy.close()
    }
  })
})
