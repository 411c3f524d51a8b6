/**
 * The gateway in the bench (issue 36; docs/gateway.md): `queenctl proxy serve` as a child process in front of the
 * bench's broker, on a database of its own on the bench's PostgreSQL, with one tenant and a read-write key. The
 * `gateway` adapter runs the same scenarios as `ours` through it, so the report sets its throughput against the
 * broker's direct figure and its latency above it, in the same run.
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import pg from 'pg'
import { applyGatewaySchema } from '../src/gateway/gateway-database.js'
import { createApiKey } from '../src/gateway/store/api-keys.js'
import { createTenant } from '../src/gateway/store/tenants.js'
import { freePort, REPO_ROOT, type BrokerProcess } from './broker-process.js'
import type { BenchPostgres } from './postgres.js'

const DATABASE = 'bench_gateway'
const READY_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 30_000

/** A running gateway and the key the bench's clients use. */
export interface GatewayProcess {
  pid: number
  url: string
  headers: Record<string, string>
  stop(): Promise<void>
}

async function freshDatabase(pgServer: BenchPostgres): Promise<pg.ClientConfig> {
  const admin = new pg.Client({ ...pgServer.connection })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${DATABASE}`)
  } finally {
    await admin.end()
  }
  return { ...pgServer.connection, database: DATABASE }
}

/** Starts the gateway in front of `broker`, with a tenant `bench` and a read-write key. */
export async function startGatewayProcess(pgServer: BenchPostgres, broker: BrokerProcess): Promise<GatewayProcess> {
  const connection = await freshDatabase(pgServer)
  await applyGatewaySchema(connection)
  const client = new pg.Client(connection)
  await client.connect()
  let key: string
  try {
    await createTenant(client, 'bench')
    key = (await createApiKey(client, { tenant: 'bench', role: 'read-write' })).key
  } finally {
    await client.end()
  }
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PROXY_PG_HOST: pgServer.connection.host,
    PROXY_PG_PORT: String(pgServer.connection.port),
    PROXY_PG_USER: pgServer.connection.user,
    PROXY_PG_PASSWORD: pgServer.connection.password,
    PROXY_PG_DATABASE: DATABASE,
    PROXY_LOG_LEVEL: 'warn',
  }
  const prof = process.env.BENCH_GATEWAY_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_GATEWAY_PROFILE}`]
    : []
  const child = spawn(
    process.execPath,
    [
      ...prof,
      path.join(REPO_ROOT, 'bin/run.js'),
      'proxy',
      'serve',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--upstreams',
      broker.url,
    ],
    { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const tail: string[] = []
  const keep = (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').split('\n').filter(Boolean))
    tail.splice(0, Math.max(0, tail.length - 20))
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    process.removeListener('exit', killOnExit)
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }
  const deadline = Date.now() + READY_TIMEOUT_MS
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the gateway exited during start: ${tail.join(' | ')}`)
    const healthy = await fetch(`${url}/proxy/health`, { signal: AbortSignal.timeout(2000) })
      .then((response) => response.ok)
      .catch(() => false)
    if (healthy) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`the gateway did not become healthy in time: ${tail.join(' | ')}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return { pid: child.pid!, url, headers: { authorization: `Bearer ${key}` }, stop }
}
