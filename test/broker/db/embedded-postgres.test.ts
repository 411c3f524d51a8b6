/**
 * The embedded PostgreSQL (docs/operations.md, "Embedded PostgreSQL"): a real server initialised on first use in
 * QUEEN_DATA_DIR, data kept across restarts and crashes, credentials in an owner-only file, run as an unprivileged user
 * when we are root, the directory locked against a second broker, and a server orphaned by a killed broker taken over
 * by the next one. Each test has its own directory under /tmp and initialises its own cluster, so these tests are slow.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import {
  startEmbeddedPostgres,
  type EmbeddedConnection,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from '../../../src/platform/postgres/embedded-postgres.js'
import {
  distModule,
  isAlive,
  postmasterPid,
  runCli,
  startNodeScript,
  stopLeftoverPostmaster,
  tempDir,
  type TestProcess,
} from '../../support/cli-harness.js'
import { trackResource } from '../../support/resources.js'

const SLOW = 120_000
const isRoot = process.getuid?.() === 0

/** Starts an embedded server that the test's cleanup stops. */
async function start(
  servers: EmbeddedPostgres[],
  options: Omit<EmbeddedPostgresOptions, 'port'> & { port?: number },
): Promise<EmbeddedPostgres> {
  const server = await startEmbeddedPostgres({ port: 0, ...options })
  const untrack = trackResource(`embedded postgres in ${options.dataDir}`)
  const stop = server.stop.bind(server)
  const crash = server.crash.bind(server)
  const wrapped: EmbeddedPostgres = {
    ...server,
    stop: async () => {
      await stop()
      untrack()
    },
    crash: async () => {
      await crash()
      untrack()
    },
  }
  servers.push(wrapped)
  return wrapped
}

/**
 * Runs `body` with a fresh directory under /tmp; afterwards stops every server the test started, any
 * postmaster left on the directory (by its pid), and removes the directory.
 */
async function withDataDir(
  body: (dataDir: string, servers: EmbeddedPostgres[]) => Promise<void>,
  root?: string,
): Promise<void> {
  let base = root
  if (base === undefined) {
    base = await tempDir('embedded')
    // mkdtemp makes it 0700 (root only); the server's user must be able to enter it.
    await chmod(base, 0o755)
  }
  const dataDir = path.join(base, 'data')
  const servers: EmbeddedPostgres[] = []
  try {
    await body(dataDir, servers)
  } finally {
    for (const server of servers.reverse()) await server.stop().catch(() => undefined)
    await stopLeftoverPostmaster(path.join(dataDir, 'pg'))
    await rm(base, { recursive: true, force: true })
  }
}

async function query<T extends pg.QueryResultRow>(connection: EmbeddedConnection, sql: string): Promise<T[]> {
  const client = new pg.Client(connection)
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

async function seed(server: EmbeddedPostgres, value: string): Promise<void> {
  await query(server.connection, 'CREATE TABLE kept (value text NOT NULL)')
  await query(server.connection, `INSERT INTO kept VALUES ('${value}')`)
}

async function keptValues(server: EmbeddedPostgres): Promise<string[]> {
  return (await query<{ value: string }>(server.connection, 'SELECT value FROM kept ORDER BY value')).map(
    (row) => row.value,
  )
}

/** A second Node process calling startEmbeddedPostgres on `dataDir` (from the build). */
function startInOtherProcess(dataDir: string, mode: 'try' | 'hold'): TestProcess {
  return startNodeScript(
    `
    const { startEmbeddedPostgres } = await import(process.env.MODULE)
    try {
      const server = await startEmbeddedPostgres({ dataDir: process.env.DATA_DIR, port: 0 })
      process.stdout.write('started port=' + server.connection.port + '\\n')
      if (process.env.MODE === 'hold') setInterval(() => undefined, 60_000)
      else { await server.stop(); process.exit(0) }
    } catch (error) {
      process.stdout.write('refused: ' + error.message + '\\n')
      process.exit(3)
    }
    `,
    { MODULE: distModule('platform/postgres/embedded-postgres.js'), DATA_DIR: dataDir, MODE: mode },
  )
}

describe('startEmbeddedPostgres', () => {
  it(
    'keeps committed data across a stop and a start on the same directory',
    async () => {
      await withDataDir(async (dataDir, servers) => {
        const first = await start(servers, { dataDir })
        expect(first.version).toMatch(/^\d+\.\d+/)
        await seed(first, 'survives-restart')
        await first.stop()
        expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false)

        const second = await start(servers, { dataDir })

        expect(await keptValues(second)).toEqual(['survives-restart'])
        await second.stop()
      })
    },
    SLOW,
  )

  it(
    'writes working credentials to <dataDir>/embedded.json, readable only by its owner',
    async () => {
      await withDataDir(async (dataDir, servers) => {
        const server = await start(servers, { dataDir })
        const file = path.join(dataDir, 'embedded.json')

        expect((await stat(file)).mode & 0o777).toBe(0o600)
        const recorded = JSON.parse(await readFile(file, 'utf8')) as EmbeddedConnection
        expect(recorded.port).toBe(server.connection.port)
        expect(recorded.host).toBe('127.0.0.1')
        const rows = await query<{ user: string }>(recorded, 'SELECT current_user AS user')
        expect(rows[0]?.user).toBe(recorded.user)
        // The password is real: a wrong one is refused
        await expect(query({ ...recorded, password: `${recorded.password}x` }, 'SELECT 1')).rejects.toThrow(/password/i)
        await server.stop()
      })
    },
    SLOW,
  )

  it(
    'finds the committed row after a crash (SIGQUIT) and a restart',
    async () => {
      await withDataDir(async (dataDir, servers) => {
        const first = await start(servers, { dataDir })
        await seed(first, 'survives-crash')
        const pid = await postmasterPid(first.clusterDir)
        await first.crash()
        expect(pid !== undefined && isAlive(pid)).toBe(false)

        const second = await start(servers, { dataDir })

        expect(await keptValues(second)).toEqual(['survives-crash'])
        await second.stop()
      })
    },
    SLOW,
  )

  it(
    'refuses a second broker process on a directory in use, naming QUEEN_DATA_DIR',
    async () => {
      await withDataDir(async (dataDir, servers) => {
        const first = await start(servers, { dataDir })
        await seed(first, 'first-broker')
        const firstPid = await postmasterPid(first.clusterDir)

        const other = startInOtherProcess(dataDir, 'try')
        try {
          const exit = await other.exited(60_000)
          expect(other.stdout()).toMatch(/refused: .*QUEEN_DATA_DIR/)
          expect(exit.code).toBe(3)
        } finally {
          await other.kill()
        }

        // The first server is untouched
        expect(await postmasterPid(first.clusterDir)).toBe(firstPid)
        expect(await keptValues(first)).toEqual(['first-broker'])
        await first.stop()
      })
    },
    SLOW,
  )

  it(
    'refuses a second start on a directory in use in the same process, naming QUEEN_DATA_DIR',
    async () => {
      await withDataDir(async (dataDir, servers) => {
        const first = await start(servers, { dataDir })
        await seed(first, 'first-start')
        const firstPid = await postmasterPid(first.clusterDir)

        await expect(start(servers, { dataDir })).rejects.toThrow(/QUEEN_DATA_DIR/)

        // The first server is untouched
        expect(await postmasterPid(first.clusterDir)).toBe(firstPid)
        expect(await keptValues(first)).toEqual(['first-start'])
        await first.stop()
      })
    },
    SLOW,
  )

  it(
    'takes over a server left running by a broker killed with SIGKILL',
    async () => {
      await withDataDir(async (dataDir, servers) => {
        // Given a broker process that started the embedded server, wrote a row, and was killed -9
        const broker = startInOtherProcess(dataDir, 'hold')
        let orphanPid: number | undefined
        try {
          const port = Number((await broker.waitFor(/started port=(\d+)/, 60_000))[1])
          const recorded = JSON.parse(await readFile(path.join(dataDir, 'embedded.json'), 'utf8')) as EmbeddedConnection
          expect(recorded.port).toBe(port)
          await query(recorded, 'CREATE TABLE kept (value text NOT NULL)')
          await query(recorded, "INSERT INTO kept VALUES ('before-kill')")
          orphanPid = await postmasterPid(path.join(dataDir, 'pg'))
        } finally {
          await broker.kill()
        }
        expect(orphanPid !== undefined && isAlive(orphanPid)).toBe(true)
        expect(existsSync(path.join(dataDir, 'queen.lock'))).toBe(true)

        // When the next broker starts on the same directory
        const next = await start(servers, { dataDir })

        // Then it runs its own server with the data, and the orphan is gone
        expect(await keptValues(next)).toEqual(['before-kill'])
        expect(isAlive(orphanPid!)).toBe(false)
        const nextPid = await postmasterPid(next.clusterDir)
        expect(nextPid).not.toBe(orphanPid)
        await next.stop()
      })
    },
    SLOW,
  )

  describe.runIf(isRoot)('as root', () => {
    const postgresUid = isRoot ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()) : -1

    it(
      'runs the server as the postgres user, owning the cluster directory',
      async () => {
        await withDataDir(async (dataDir, servers) => {
          const server = await start(servers, { dataDir })
          const pid = await postmasterPid(server.clusterDir)
          expect(pid).toBeDefined()

          const user = execFileSync('ps', ['-o', 'user=', '-p', String(pid)], { encoding: 'utf8' }).trim()
          expect(user).toBe('postgres')
          expect(server.runAs).toBe('postgres')
          const rows = await query<{ dir: string }>(
            server.connection,
            "SELECT current_setting('data_directory') AS dir",
          )
          expect(rows[0]?.dir).toBe(server.clusterDir)
          expect((await stat(server.clusterDir)).uid).toBe(postgresUid)
          await server.stop()
        })
      },
      SLOW,
    )

    it(
      'refuses a data directory the postgres user cannot reach, naming QUEEN_DATA_DIR',
      async () => {
        // Given a parent directory only root can enter
        const parent = await tempDir('unreachable')
        await mkdir(parent, { recursive: true, mode: 0o700 })
        expect((await stat(parent)).mode & 0o777).toBe(0o700)
        await withDataDir(async (dataDir, servers) => {
          await expect(start(servers, { dataDir })).rejects.toThrow(/QUEEN_DATA_DIR/)
          expect(existsSync(path.join(dataDir, 'pg'))).toBe(false)
        }, parent)
      },
      SLOW,
    )
  })

  it(
    'stops `queenctl serve` with a config error naming QUEEN_DATA_DIR when the directory cannot be made',
    async () => {
      // A path under /proc (no directory can be made there) and one under a regular file
      const base = await tempDir('blocked')
      await chmod(base, 0o755)
      const file = path.join(base, 'plain')
      await writeFile(file, 'not a directory')
      try {
        const proc = await runCli(['serve', '--port', '0'], { env: { QUEEN_DATA_DIR: '/proc/queenctl-no-such-dir' } })
        expect(proc.code).toBe(1)
        expect(proc.stderr).toContain('config error: QUEEN_DATA_DIR=/proc/queenctl-no-such-dir cannot be created')
        expect(proc.stderr).not.toContain('this is a bug')

        const under = await runCli(['serve', '--port', '0'], { env: { QUEEN_DATA_DIR: path.join(file, 'data') } })
        expect(under.code).toBe(1)
        expect(under.stderr).toMatch(/config error: QUEEN_DATA_DIR=\S+\/plain\/data cannot be created: /)
        expect(await readFile(file, 'utf8')).toBe('not a directory')
      } finally {
        await rm(base, { recursive: true, force: true })
      }
    },
    SLOW,
  )
})
