/**
 * Running queenctl the way a user does: `node bin/run.js ...` from the repository root after the build
 * (`npm test` builds first), plus small Node scripts against the built modules when a test needs a second
 * process. Every process is tracked (resources.ts) and ended by its own pid. Also: empty databases (no
 * schema, unlike createTestDatabase), temporary directories under /tmp, and the PostgreSQL URL of a test
 * database.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { mkdtemp, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { dropTestDatabase, serverConnection } from './database.js'
import { trackResource } from './resources.js'

/** The repository root (where bin/run.js and dist/ live). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** `file://` URL of a built module, e.g. `distModule('platform/postgres/embedded-postgres.js')`. */
export function distModule(relative: string): string {
  return new URL(`../../dist/${relative}`, import.meta.url).href
}

/**
 * A clean environment for a child: the developer's PG_*, QUEEN_*, PORT... never leak in. Keys whose value
 * is undefined are left out.
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // Under the run's scratch directory (global-setup.ts removes it at the end) when there is one.
  const spoolDir = mkdtempSync(path.join(process.env.QUEENCTL_TEST_SCRATCH ?? tmpdir(), 'queenctl-test-spool-'))
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    // Each child gets a spool of its own: two brokers must never share one (the second would refuse).
    FILE_BUFFER_DIR: spoolDir,
  }
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value
  return env
}

/** How a child ended. */
export interface ChildExit {
  code: number | null
  signal: NodeJS.Signals | null
}

/** A running child process with its output captured. */
export interface TestProcess {
  child: ChildProcess
  pid: number
  stdout(): string
  stderr(): string
  /** stdout and stderr interleaved in arrival order. */
  output(): string
  /** Resolves with the first match of `pattern` in the combined output; rejects on timeout or exit. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  /** Resolves when the process has exited; rejects after `timeoutMs` (the process is left running). */
  exited(timeoutMs?: number): Promise<ChildExit>
  /** True while the process has not exited. */
  running(): boolean
  /** SIGKILL when still running, then waits for the exit. Idempotent; call it in `finally`. */
  kill(): Promise<void>
}

export function startProcess(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  label: string,
  cwd: string = REPO_ROOT,
  /** Written to the child's stdin, which is then closed (a pipe, as `printf ... | queenctl`); else no stdin. */
  input?: string,
): TestProcess {
  const child = spawn(file, args, { cwd, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
  if (child.pid === undefined) throw new Error(`could not spawn ${label}`)
  if (input !== undefined) {
    child.stdin!.on('error', () => undefined)
    child.stdin!.end(input)
  }
  const pid = child.pid
  const untrack = trackResource(`process ${label} (pid ${pid})`)
  let out = ''
  let err = ''
  let all = ''
  const listeners = new Set<() => void>()
  const notify = () => {
    for (const listener of [...listeners]) listener()
  }
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8')
    all += chunk.toString('utf8')
    notify()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
    all += chunk.toString('utf8')
    notify()
  })
  let exit: ChildExit | undefined
  const exitPromise = new Promise<ChildExit>((resolve) => {
    child.once('close', (code, signal) => {
      exit = { code, signal }
      untrack()
      notify()
      resolve(exit)
    })
  })

  const describe = () => `${label}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`

  return {
    child,
    pid,
    stdout: () => out,
    stderr: () => err,
    output: () => all,
    running: () => exit === undefined,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = all.match(pattern)
          if (match) {
            done()
            resolve(match)
          } else if (exit) {
            done()
            reject(
              new Error(`process exited (${JSON.stringify(exit)}) before printing ${String(pattern)}: ${describe()}`),
            )
          }
        }
        const timer = setTimeout(() => {
          done()
          reject(new Error(`no ${String(pattern)} within ${timeoutMs} ms: ${describe()}`))
        }, timeoutMs)
        const done = () => {
          clearTimeout(timer)
          listeners.delete(check)
        }
        listeners.add(check)
        check()
      })
    },
    async exited(timeoutMs = 30_000) {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still running after ${timeoutMs} ms: ${describe()}`)), timeoutMs)
      })
      try {
        return await Promise.race([exitPromise, timeout])
      } finally {
        clearTimeout(timer)
      }
    },
    async kill() {
      if (exit === undefined) child.kill('SIGKILL')
      await exitPromise
    },
  }
}

/** Starts `node bin/run.js <args>` from the repository root. */
export function startCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string } = {},
): TestProcess {
  return startProcess(
    process.execPath,
    ['bin/run.js', ...args],
    cleanEnv(options.env),
    `queenctl ${args.join(' ')}`,
    REPO_ROOT,
    options.input,
  )
}

/** Runs `node bin/run.js <args>` to completion. */
export async function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; timeoutMs?: number; input?: string } = {},
): Promise<ChildExit & { stdout: string; stderr: string }> {
  const cli = startCli(args, options)
  try {
    const exit = await cli.exited(options.timeoutMs ?? 30_000)
    return { ...exit, stdout: cli.stdout(), stderr: cli.stderr() }
  } finally {
    await cli.kill()
  }
}

/** Starts an ES-module Node script (`node --input-type=module -e code`) from the repository root. */
export function startNodeScript(code: string, env: Record<string, string | undefined> = {}): TestProcess {
  return startProcess(process.execPath, ['--input-type=module', '-e', code], cleanEnv(env), 'node script')
}

/** Creates a database with nothing in it (no `queen` schema) and returns its name. */
export async function createEmptyDatabase(label: string): Promise<string> {
  const name = `queen_empty_${label.replace(/[^a-z0-9_]/gi, '_').slice(0, 24)}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client(serverConnection())
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name.toLowerCase()}`)
  } finally {
    await admin.end()
  }
  return name.toLowerCase()
}

/** Drops a database made by {@link createEmptyDatabase} or createTestDatabase. */
export async function dropDatabase(name: string): Promise<void> {
  await dropTestDatabase(name)
}

/** `postgres://` URL of a database on the test server. */
export function pgUrl(database: string): string {
  const { user, password, host, port } = serverConnection()
  return `postgres://${encodeURIComponent(user ?? '')}:${encodeURIComponent(String(password ?? ''))}@${host ?? '127.0.0.1'}:${port ?? 5432}/${database}`
}

/** PG_* variables of `serve` pointing at a database on the test server. */
export function pgEnv(database: string): Record<string, string> {
  const { user, password, host, port } = serverConnection()
  return {
    PG_HOST: host ?? '127.0.0.1',
    PG_PORT: String(port ?? 5432),
    PG_USER: user ?? 'postgres',
    PG_PASSWORD: String(password ?? ''),
    PG_DATABASE: database,
  }
}

/** A connected client on a database of the test server, tracked until `end()`. */
export async function connect(database: string): Promise<pg.Client> {
  const client = new pg.Client({ ...serverConnection(), database })
  await client.connect()
  const untrack = trackResource(`pg client on ${database}`)
  const end = client.end.bind(client)
  client.end = async () => {
    untrack()
    await end()
  }
  return client
}

/** True when the database has a `queen` schema. */
export async function hasQueenSchema(database: string): Promise<boolean> {
  const client = await connect(database)
  try {
    const result = await client.query<{ present: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'queen') AS present",
    )
    return result.rows[0]?.present === true
  } finally {
    await client.end()
  }
}

/** A fresh directory under /tmp (PostgreSQL runs as `postgres` when we are root and cannot enter /root). */
export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join('/tmp', `queenctl-${prefix}-`))
}

/** Pid of the postmaster of a cluster directory, from its postmaster.pid; undefined when absent. */
export async function postmasterPid(clusterDir: string): Promise<number | undefined> {
  const text = await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => undefined)
  const pid = Number.parseInt(text?.split('\n')[0] ?? '', 10)
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

/**
 * True when a process with this pid exists and has not exited. An exited process whose parent died is a
 * zombie until init reaps it (some container inits never do), so a zombie counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true
  }
}

/** Waits until `pid` is gone; false when it is still there after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return true
}

/**
 * Cleanup for a cluster a test may have left running (its broker was killed): stops the postmaster
 * recorded in `<clusterDir>/postmaster.pid` by its pid, immediate shutdown, then SIGKILL.
 */
export async function stopLeftoverPostmaster(clusterDir: string): Promise<void> {
  const pid = await postmasterPid(clusterDir)
  if (pid === undefined || !isAlive(pid)) return
  // Only the postmaster of this cluster: a stale pid file may name a pid reused by another process.
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
  if (!cmdline.includes(clusterDir)) return
  try {
    process.kill(pid, 'SIGQUIT')
  } catch {
    return
  }
  if (!(await waitForExit(pid, 10_000))) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone meanwhile
    }
    await waitForExit(pid, 5_000)
  }
}
