/**
 * Our broker as a child process (`node bin/run.js serve`), so its pid, RSS and CPU can be read from /proc
 * (docs/performance.md, "Running the bench"). It runs the compiled dist/; the build is refreshed first when dist/ is
 * missing or older than src/.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sleep } from './measure.js'
import type { BenchPostgres } from './postgres.js'

/** The repository root (bench/..). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const READY_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 30_000
/** Other engineers may be mid-change: a failed build is retried this many times, this far apart. */
const BUILD_ATTEMPTS = 4
const BUILD_RETRY_DELAY_MS = 20_000

/** A running broker child process. */
export interface BrokerProcess {
  pid: number
  url: string
  /** The last lines the broker wrote (warn level and above). */
  logTail(): string[]
  /** False once the process has exited. */
  alive(): boolean
  stop(): Promise<void>
}

async function newestMtimeMs(dir: string): Promise<number> {
  let newest = 0
  let entries
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true })
  } catch {
    return 0
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue
    const info = await stat(path.join(entry.parentPath, entry.name)).catch(() => undefined)
    if (info && info.mtimeMs > newest) newest = info.mtimeMs
  }
  return newest
}

function runBuild(): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts/build.mjs')], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', (error) => resolve({ ok: false, output: String(error) }))
    child.on('exit', (code) => resolve({ ok: code === 0, output }))
  })
}

/** Runs `npm run build` when dist/ is missing or older than src/; retries while the tree does not compile. */
export async function ensureBuilt(log: (line: string) => void): Promise<void> {
  const built = await newestMtimeMs(path.join(REPO_ROOT, 'dist'))
  const source = await newestMtimeMs(path.join(REPO_ROOT, 'src'))
  if (built > 0 && built >= source) return
  for (let attempt = 1; ; attempt++) {
    log(built === 0 ? 'dist/ is missing: building' : 'dist/ is older than src/: building')
    const result = await runBuild()
    if (result.ok) return
    if (attempt >= BUILD_ATTEMPTS) {
      throw new Error(`npm run build failed ${attempt} times; last output:\n${result.output.slice(-2000)}`)
    }
    log(`build failed (attempt ${attempt}/${BUILD_ATTEMPTS}), retrying in ${BUILD_RETRY_DELAY_MS / 1000} s`)
    await sleep(BUILD_RETRY_DELAY_MS)
  }
}

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
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

async function waitUntilHealthy(url: string, child: ChildProcess, tail: string[]): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the broker exited during start (${child.exitCode ?? child.signalCode}): ${tail.join(' | ')}`)
    }
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })
      if (response.ok) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the broker did not become healthy in time: ${tail.join(' | ')}`)
    await sleep(200)
  }
}

/**
 * What bin/run.js's shebang line (`#!/usr/bin/env -S [NAME=value ...] node <flags>`) gives the installed
 * binary: the environment it sets (glibc malloc tunables) and node's flags.
 */
export function shebangLaunch(line: string): { env: Record<string, string>; nodeFlags: string[] } {
  const words = line
    .replace(/^#!\S*env\s+-S\s+/, '')
    .split(/\s+/)
    .filter(Boolean)
  const env: Record<string, string> = {}
  let index = 0
  for (; index < words.length; index++) {
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(words[index] ?? '')
    if (!assignment) break
    env[assignment[1]!] = assignment[2]!
  }
  return words[index] === 'node' ? { env, nodeFlags: words.slice(index + 1) } : { env, nodeFlags: [] }
}

function binShebang(): { env: Record<string, string>; nodeFlags: string[] } {
  return shebangLaunch(readFileSync(path.join(REPO_ROOT, 'bin/run.js'), 'utf8').split('\n', 1)[0] ?? '')
}

/**
 * Starts `bin/run.js serve` on the benchmark's PostgreSQL. `profileDir` runs it under node's --cpu-prof
 * (the profile is written there when the broker exits at the end of the run).
 */
export async function startBrokerProcess(
  pg: BenchPostgres,
  options: { extraEnv?: Record<string, string>; profileDir?: string } = {},
) {
  const port = await freePort()
  const spoolDir = await mkdtemp('/tmp/queenctl-bench-spool-')
  const env: NodeJS.ProcessEnv = { ...process.env }
  // The database is the benchmark's: drop inherited aliases that could conflict with the values below.
  for (const name of ['PG_DB', 'PG_URL', 'QUEEN_PG_URL']) delete env[name]
  Object.assign(env, {
    PG_HOST: pg.connection.host,
    PG_PORT: String(pg.connection.port),
    PG_USER: pg.connection.user,
    PG_PASSWORD: pg.connection.password,
    PG_DATABASE: pg.connection.database,
    PORT: String(port),
    HOST: '127.0.0.1',
    FILE_BUFFER_DIR: spoolDir,
    QUEEN_DATA_DIR: spoolDir,
    LOG_LEVEL: 'warn',
    ...options.extraEnv,
  })
  // Started through its shebang, as the installed `queenctl` binary runs (with the environment and V8 flags
  // it sets); under a profiler, by node with that same environment and those flags.
  const entry = path.join(REPO_ROOT, 'bin/run.js')
  const launch = options.profileDir === undefined ? undefined : binShebang()
  const child =
    launch === undefined
      ? spawn(entry, ['serve'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(
          process.execPath,
          [...launch.nodeFlags, '--cpu-prof', `--cpu-prof-dir=${options.profileDir}`, entry, 'serve'],
          { cwd: REPO_ROOT, env: { ...env, ...launch.env }, stdio: ['ignore', 'pipe', 'pipe'] },
        )
  const tail: string[] = []
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue
      tail.push(line)
      if (tail.length > 20) tail.shift()
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  const url = `http://127.0.0.1:${port}`

  const stop = async () => {
    process.removeListener('exit', killOnExit)
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
      await exited
      clearTimeout(timer)
    }
    await rm(spoolDir, { recursive: true, force: true })
  }

  try {
    await waitUntilHealthy(url, child, tail)
  } catch (error) {
    await stop()
    throw error
  }
  if (child.pid === undefined) throw new Error('the broker process has no pid')
  const alive = () => child.exitCode === null && child.signalCode === null
  const broker: BrokerProcess = { pid: child.pid, url, logTail: () => [...tail], alive, stop }
  return broker
}
