/**
 * `queenctl serve` (docs/cli.md, "queenctl serve", docs/configuration.md, "How configuration is read";
 * docs/operations.md, "Boot", "Logs", "Shutdown" and "Embedded PostgreSQL") run as an operator runs it: `node
 * bin/run.js serve` from the build, configured through the environment, talked to over real HTTP, stopped with SIGTERM.
 */
import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { chmod, rm, writeFile } from 'node:fs/promises'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createTestDatabase } from '../support/database.js'
import {
  connect,
  createEmptyDatabase,
  dropDatabase,
  hasQueenSchema,
  pgEnv,
  runCli,
  startCli,
  startNodeScript,
  stopLeftoverPostmaster,
  tempDir,
  type TestProcess,
} from '../support/cli-harness.js'
import { http } from '../support/broker.js'
import { statsRefreshed, statsRefreshPids, until } from '../support/poll.js'

/** The schema version this build needs: the highest number among the shipped schema files. */
const requiredVersion = Math.max(
  ...readdirSync(new URL('../../src/broker/schema/', import.meta.url))
    .filter((name) => name.endsWith('.sql'))
    .map((name) => Number.parseInt(name, 10)),
)

/** A running `serve` with the URL it listens on. */
interface Serve {
  process: TestProcess
  url: string
}

/** Starts `serve` on a free port of 127.0.0.1 and waits for its `listening` line. */
async function startServe(env: Record<string, string>, readyTimeoutMs = 30_000): Promise<Serve> {
  const serve = startCli(['serve'], { env: { PORT: '0', HOST: '127.0.0.1', QUEEN_SERVER_ID: 'serve-test', ...env } })
  try {
    const match = await serve.waitFor(/\blistening\b.*\bhttp=([\d.]+):(\d+)/, readyTimeoutMs)
    return { process: serve, url: `http://${match[1]}:${match[2]}` }
  } catch (error) {
    await serve.kill()
    throw error
  }
}

/** A spool directory of its own, so no test writes to /var/lib/queen. */
async function withSpoolDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await tempDir('spool')
  try {
    await body(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Index of the first output line matching `pattern`, -1 when none does. */
function lineIndex(lines: string[], pattern: RegExp): number {
  return lines.findIndex((line) => pattern.test(line))
}

/** Pids of processes whose command line contains `text` (`pgrep -f`); empty when none. */
function pgrep(text: string): Promise<number[]> {
  return new Promise((resolve, reject) => {
    execFile('pgrep', ['-f', text], (error, stdout) => {
      if (error && error.code === 1) resolve([])
      else if (error) reject(new Error(`pgrep -f ${text} failed`, { cause: error }))
      else resolve(stdout.split('\n').filter(Boolean).map(Number))
    })
  })
}

/** What a `serve` started by bin/run.js has loaded once it listens. */
interface LoadedAtBoot {
  /** Any oclif module (CommonJS). */
  oclif: boolean
  /** Node's bundled fetch (undici). */
  undici: boolean
  /** The URL of every ES module loaded, ours and libraries', as a module hook saw them. */
  modules: string[]
}

/**
 * Runs bin/run.js with `args` in a script that registers a module hook first, lists what it loaded once the
 * broker listens, and exits.
 */
async function loadedAtBoot(args: string[], env: Record<string, string>): Promise<LoadedAtBoot> {
  const list = path.join(await tempDir('queen-modules-'), 'modules.txt')
  const hook = `import { appendFileSync } from 'node:fs'
    export async function load(url, context, next) { appendFileSync(${JSON.stringify(list)}, url + '\\n'); return next(url, context) }`
  const script = `
    import { createRequire, register } from 'node:module'
    import { readFileSync } from 'node:fs'
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}))
    process.argv = [process.argv[0], 'bin/run.js', ...${JSON.stringify(args)}]
    await import('./bin/run.js')
    const required = Object.keys(createRequire(import.meta.url).cache)
    const oclif = required.some((file) => file.includes('@oclif'))
    const undici = process.moduleLoadList.some((name) => name.includes('internal/deps/undici'))
    const modules = [...required, ...readFileSync(${JSON.stringify(list)}, 'utf8').split('\\n').filter(Boolean)]
    console.log('MODULES ' + JSON.stringify({ oclif, undici, modules }))
    process.exit(0)
  `
  const node = startNodeScript(script, env)
  try {
    const exit = await node.exited(30_000)
    expect(exit.code, node.stderr()).toBe(0)
    expect(node.stdout()).toMatch(/\blistening\b.*\bhttp=/)
    return JSON.parse(/MODULES (.*)/.exec(node.stdout())?.[1] ?? 'null') as LoadedAtBoot
  } finally {
    await node.kill()
  }
}

/** A TCP port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('queenctl serve on an external PostgreSQL', () => {
  it('logs the boot in order, reports healthy, and serves a push and a pop', async () => {
    const database = await createTestDatabase('serve_boot')
    try {
      await withSpoolDir(async (spool) => {
        const serve = await startServe({ ...pgEnv(database), FILE_BUFFER_DIR: spool })
        try {
          // The boot log, in the order of docs/operations.md, "Boot"
          const lines = serve.process.stdout().split('\n')
          const order = [
            lineIndex(lines, /config: server\b/),
            lineIndex(lines, /config: database\s+mode=external\b/),
            lineIndex(lines, /\bINFO\s+schema (up to date|applied)\b/),
            lineIndex(lines, /\bINFO\s+mesh\s/),
            lineIndex(lines, /\bINFO\s+listening\s/),
          ]
          expect(
            order.every((index) => index >= 0),
            serve.process.stdout(),
          ).toBe(true)
          expect(
            [...order].sort((a, b) => a - b),
            serve.process.stdout(),
          ).toEqual(order)

          const health = await http(serve, 'GET', '/health')
          expect(health.status).toBe(200)
          expect(health.body.status).toBe('healthy')
          const live = await http(serve, 'GET', '/health/live')
          expect(live.status).toBe(200)
          expect(live.body.status).toBe('alive')

          // The built dashboard is served at / (docs/dashboard.md), and the listening line says so.
          expect(serve.process.stdout()).toMatch(/\blistening\b.*\bdashboard=on\b/)
          const page = await fetch(`${serve.url}/`)
          expect(page.status).toBe(200)
          expect(await page.text()).toMatch(
            /<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/,
          )

          const push = await http(serve, 'POST', '/api/v1/push', {
            items: [{ queue: 'serve-orders', payload: { order: 42 } }],
          })
          expect(push.status).toBe(200)
          expect(push.body[0].status).toBe('queued')
          const pop = await http(serve, 'GET', '/api/v1/pop/queue/serve-orders?batch=10')
          expect(pop.status).toBe(200)
          expect(pop.body.messages).toHaveLength(1)
          expect(pop.body.messages[0].data).toEqual({ order: 42 })

          serve.process.child.kill('SIGTERM')
          expect((await serve.process.exited(10_000)).code).toBe(0)
          // Nothing on stderr for the operator to wonder about, from boot to exit (a pg deprecation warning
          // was printed at every boot).
          expect(serve.process.stderr()).toBe('')
        } finally {
          await serve.process.kill()
        }
      })
    } finally {
      await dropDatabase(database)
    }
  })

  it('on SIGTERM during boot drains once up and exits 0 rather than dying mid-boot', async () => {
    const database = await createTestDatabase('serve_boot_signal')
    try {
      await withSpoolDir(async (spool) => {
        const serve = startCli(['serve'], {
          env: {
            PORT: '0',
            HOST: '127.0.0.1',
            QUEEN_SERVER_ID: 'serve-test',
            ...pgEnv(database),
            FILE_BUFFER_DIR: spool,
          },
        })
        try {
          // The first line the broker logs, before it opens the spool or touches the database.
          await serve.waitFor(/config: server\b/, 30_000)
          serve.child.kill('SIGTERM')
          const exit = await serve.exited(30_000)
          expect(exit.code, serve.output()).toBe(0)
          const lines = serve.stdout().split('\n')
          expect(lineIndex(lines, /signal during boot/), serve.output()).toBeGreaterThanOrEqual(0)
          expect(lineIndex(lines, /shutdown phase=stopped exit_code=0/), serve.output()).toBeGreaterThan(
            lineIndex(lines, /signal during boot/),
          )
        } finally {
          await serve.kill()
        }
      })
    } finally {
      await dropDatabase(database)
    }
  })

  it('logs the spool line again, with the temp directory, when the configured spool directory is unusable', async () => {
    const database = await createTestDatabase('serve_spool_fallback')
    const base = await tempDir('spool-blocked')
    // A directory that cannot be created, even by root: its parent is a regular file.
    await writeFile(path.join(base, 'file'), '')
    const configured = path.join(base, 'file', 'spool')
    const serverId = `serve-fallback-${process.pid}`
    const fallbackDir = path.join(tmpdir(), `queen-spool-${serverId}`)
    try {
      // TMPDIR as this process sees it, so the child falls back where fallbackDir says.
      const serve = await startServe({
        ...pgEnv(database),
        FILE_BUFFER_DIR: configured,
        QUEEN_SERVER_ID: serverId,
        TMPDIR: tmpdir(),
      })
      try {
        const lines = serve.process.stdout().split('\n')
        const block = lineIndex(lines, /config: spool\s/)
        const corrected = lineIndex(lines, new RegExp(`config: spool\\s+dir=${fallbackDir} fallback=yes `))
        expect(lines[block], serve.process.stdout()).toContain(`dir=${configured}`)
        expect(corrected, serve.process.stdout()).toBeGreaterThan(block)
        expect(lines[corrected]).toMatch(/\bWARN\b/)
        expect(existsSync(fallbackDir)).toBe(true)
        serve.process.child.kill('SIGTERM')
        expect((await serve.process.exited(10_000)).code).toBe(0)
      } finally {
        await serve.process.kill()
      }
    } finally {
      await rm(base, { recursive: true, force: true })
      await rm(fallbackDir, { recursive: true, force: true })
      await dropDatabase(database)
    }
  })

  it('on SIGTERM cancels a running stats refresh instead of waiting for it, and exits 0', async () => {
    const database = await createTestDatabase('serve_stats_cut')
    const observer = await connect(database)
    const blocker = await connect(database)
    try {
      await withSpoolDir(async (spool) => {
        const serve = await startServe({
          ...pgEnv(database),
          FILE_BUFFER_DIR: spool,
          STATS_INTERVAL_MS: '200',
          QUEEN_SHUTDOWN_TIMEOUT_MS: '6000',
        })
        try {
          const log = () => serve.process.stdout()
          // A refresh has committed its horizon row; holding that row keeps the next refresh running (it
          // writes the row last), as a refresh over a large database would be.
          await until('a first stats refresh', () => statsRefreshed(observer), log)
          await blocker.query('BEGIN')
          await blocker.query('SELECT * FROM queen.stats_refresh_state FOR UPDATE')
          await until(
            'a refresh waiting on the held row',
            async () => (await statsRefreshPids(observer)).length === 1,
            log,
          )

          const signalled = performance.now()
          serve.process.child.kill('SIGTERM')
          const exit = await serve.process.exited(10_000)
          const shutdownMs = performance.now() - signalled
          expect(exit.code, serve.process.stdout()).toBe(0)
          // Without the cancel the drain waits for the refresh until QUEEN_SHUTDOWN_TIMEOUT_MS and exits 2.
          expect(shutdownMs).toBeLessThan(5_000)
          // Cancelled in PostgreSQL too, not left running after the broker has gone.
          await until(
            'the refresh to end in PostgreSQL',
            async () => (await statsRefreshPids(observer)).length === 0,
            log,
          )
        } finally {
          await serve.process.kill()
        }
      })
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined)
      await blocker.end()
      await observer.end()
      await dropDatabase(database)
    }
  })

  it('starts without loading oclif, with or without its flags (issues 22 and 39); oclif reports what it refuses', async () => {
    const database = await createTestDatabase('serve_no_oclif')
    try {
      await withSpoolDir(async (spool) => {
        const env = { ...pgEnv(database), PORT: '0', HOST: '127.0.0.1', FILE_BUFFER_DIR: spool }
        const served = async (args: string[]) => {
          const { oclif, undici } = await loadedAtBoot(args, env)
          return { oclif, undici }
        }
        // Neither loads Node's bundled fetch (undici), which pg's Cloudflare probe would (parts/pg-preload.ts).
        expect(await served(['serve'])).toEqual({ oclif: false, undici: false })
        expect(await served(['serve', '--log-level', 'info', '--host=127.0.0.1'])).toEqual({ oclif: false, undici: false })
        // A value the command refuses goes to oclif, which names the flag and starts nothing.
        const refused = await runCli(['serve', '--log-level', 'loud'], {
          env: { ...pgEnv(database), PORT: '0', FILE_BUFFER_DIR: spool },
        })
        expect(refused.code, refused.stdout).not.toBe(0)
        expect(refused.stdout).not.toMatch(/\blistening\b/)
        expect(refused.stderr).toMatch(/--log-level/)
        expect(refused.stderr).toMatch(/loud/)
      })
    } finally {
      await dropDatabase(database)
    }
  })

  it('loads no module of JWT, tenancy or the mesh while they are off, and loads them once they are on (issue 39)', async () => {
    const database = await createTestDatabase('serve_off_parts')
    // The modules each part loads only when it is on; jose is JWT's library.
    const partModules = [
      'dist/broker/auth/hook.js',
      'dist/broker/auth/route-classes.js',
      'dist/broker/auth/roles.js',
      'dist/broker/auth/verify.js',
      'dist/broker/auth/keys.js',
      'dist/broker/http/tenancy-gate.js',
      'dist/broker/mesh/peers.js',
      'dist/broker/mesh/mesh.js',
      'node_modules/jose/',
    ]
    const present = (modules: string[]) => partModules.filter((part) => modules.some((url) => url.includes(part)))
    try {
      await withSpoolDir(async (spool) => {
        const env = { ...pgEnv(database), PORT: '0', HOST: '127.0.0.1', FILE_BUFFER_DIR: spool }
        const off = await loadedAtBoot(['serve'], env)
        expect(off.modules.some((url) => url.includes('dist/broker/app.js'))).toBe(true)
        expect(present(off.modules)).toEqual([])
        const on = await loadedAtBoot(['serve'], {
          ...env,
          JWT_ENABLED: 'true',
          JWT_SECRET: 'a-secret-of-at-least-thirty-two-characters!',
          QUEEN_TENANCY_HEADER: 'X-Queen-Tenant',
          QUEEN_MESH_PORT: String(await freePort()),
          QUEEN_MESH_PEERS: `127.0.0.1:${await freePort()}`,
        })
        expect(present(on.modules)).toEqual(partModules)
      })
    } finally {
      await dropDatabase(database)
    }
  })

  it('on SIGTERM answers 50 parked long-polls with no messages at once and exits 0 within 2 s', async () => {
    const database = await createTestDatabase('serve_drain')
    try {
      await withSpoolDir(async (spool) => {
        const serve = await startServe({ ...pgEnv(database), FILE_BUFFER_DIR: spool })
        try {
          // Given an existing, empty queue
          const push = await http(serve, 'POST', '/api/v1/push', { items: [{ queue: 'drain-q', payload: 1 }] })
          expect(push.body[0].status).toBe('queued')
          const popped = await http(serve, 'GET', '/api/v1/pop/queue/drain-q')
          const message = popped.body.messages[0]
          const ack = await http(serve, 'POST', '/api/v1/ack', {
            transactionId: message.transactionId,
            partitionId: message.partitionId,
            leaseId: message.leaseId,
          })
          expect(ack.body[0].success).toBe(true)

          // And fifty consumers parked on it for up to 30 s (docs/reliability.md, "Hazards")
          const answered: { status: number; body: any; at: number }[] = []
          const polls = Array.from({ length: 50 }, () =>
            http(serve, 'GET', '/api/v1/pop/queue/drain-q?wait=true&timeout=30000').then((response) => {
              answered.push({ ...response, at: Date.now() })
              return response
            }),
          )
          await new Promise((resolve) => setTimeout(resolve, 1000))
          expect(answered, 'long-polls answered before the signal').toHaveLength(0)

          // When the broker gets SIGTERM
          const signalledAt = Date.now()
          serve.process.child.kill('SIGTERM')

          // Then each long-poll is answered with no messages within 2 s
          await Promise.all(polls)
          for (const response of answered) {
            expect(response.status).toBe(200)
            expect(response.body.messages).toEqual([])
            expect(response.at - signalledAt).toBeLessThan(2000)
          }
          // And the process exits 0 within 2 s of the signal
          const exit = await serve.process.exited(Math.max(0, 2000 - (Date.now() - signalledAt)))
          expect(exit.code).toBe(0)
          expect(answered).toHaveLength(50)
          expect(serve.process.stdout()).toMatch(/\bshutdown\b.*\bparked_answered=50\b/)
        } finally {
          await serve.process.kill()
        }
      })
    } finally {
      await dropDatabase(database)
    }
  })

  it('with QUEEN_APPLY_SCHEMA=0 refuses to boot on a database without the schema, exit 1', async () => {
    const database = await createEmptyDatabase('serve_noschema')
    try {
      await withSpoolDir(async (spool) => {
        const result = await runCli(['serve'], {
          env: { ...pgEnv(database), PORT: '0', HOST: '127.0.0.1', QUEEN_APPLY_SCHEMA: '0', FILE_BUFFER_DIR: spool },
        })
        const output = `${result.stdout}\n${result.stderr}`

        expect(result.code, output).toBe(1)
        const line = output.split('\n').find((candidate) => /schema/i.test(candidate) && /version/i.test(candidate))
        expect(line, output).toBeDefined()
        expect(line).toMatch(new RegExp(`\\b${requiredVersion}\\b`))
        expect(output).not.toMatch(/\blistening\b.*http=/)
        expect(await hasQueenSchema(database)).toBe(false)
      })
    } finally {
      await dropDatabase(database)
    }
  })
})

describe('queenctl serve configuration', () => {
  it('--print-config prints the six config lines and exits 0 without touching a database', async () => {
    // An external PostgreSQL that does not exist: nothing listens on port 1
    const external = await runCli(['serve', '--print-config'], {
      env: { PG_HOST: '127.0.0.1', PG_PORT: '1', PG_PASSWORD: 'secret-value' },
    })
    expect(external.code, external.stderr).toBe(0)
    const lines = external.stdout.split('\n').filter(Boolean)
    expect(lines.map((line) => line.match(/^config: (\w+)\s/)?.[1])).toEqual([
      'server',
      'database',
      'security',
      'spool',
      'mesh',
      'auth',
    ])
    expect(lines[1]).toMatch(/mode=external\b.*\bhost=127\.0\.0\.1\b.*\bport=1\b/)
    expect(external.stdout).not.toContain('secret-value')

    // The embedded server: its data directory is not even created
    const base = await tempDir('printcfg')
    try {
      const dataDir = path.join(base, 'never-created')
      const embedded = await runCli(['serve', '--print-config'], { env: { QUEEN_DATA_DIR: dataDir } })
      expect(embedded.code, embedded.stderr).toBe(0)
      expect(embedded.stdout.split('\n').filter(Boolean)).toHaveLength(6)
      expect(embedded.stdout).toMatch(/config: database\s+mode=embedded\b/)
      expect(existsSync(dataDir)).toBe(false)
    } finally {
      await rm(base, { recursive: true, force: true })
    }
  })

  it('an invalid environment exits 1 naming every invalid variable', async () => {
    const env = { JWT_ENABLED: 'yes', DB_POOL_SIZE: 'ten', PG_HOST: '127.0.0.1', PG_PORT: '1' }

    const serve = await runCli(['serve'], { env })
    expect(serve.code).toBe(1)
    expect(serve.stderr).toContain('JWT_ENABLED')
    expect(serve.stderr).toContain('DB_POOL_SIZE')

    const printConfig = await runCli(['serve', '--print-config'], { env })
    expect(printConfig.code).toBe(1)
    expect(printConfig.stderr).toContain('JWT_ENABLED')
    expect(printConfig.stderr).toContain('DB_POOL_SIZE')
  })
})

describe('queenctl serve with the embedded PostgreSQL', () => {
  it('starts it in QUEEN_DATA_DIR, serves a push, and stops it on SIGTERM', { timeout: 120_000 }, async () => {
    const base = await tempDir('serve-embedded')
    // mkdtemp makes it 0700; the server's unprivileged user must be able to enter it
    await chmod(base, 0o755)
    const dataDir = path.join(base, 'data')
    try {
      await withSpoolDir(async (spool) => {
        const serve = await startServe({ QUEEN_DATA_DIR: dataDir, FILE_BUFFER_DIR: spool }, 90_000)
        try {
          expect(serve.process.stdout()).toMatch(/config: database\s+mode=embedded\b/)
          expect(serve.process.stdout()).toMatch(/\bINFO\s+database\s+mode=embedded\b/)
          expect(await pgrep(dataDir)).not.toEqual([])

          const health = await http(serve, 'GET', '/health')
          expect(health.status).toBe(200)
          const push = await http(serve, 'POST', '/api/v1/push', {
            items: [{ queue: 'embedded-q', payload: { hello: 'embedded' } }],
          })
          expect(push.status).toBe(200)
          expect(push.body[0].status).toBe('queued')
          const pop = await http(serve, 'GET', '/api/v1/pop/queue/embedded-q')
          expect(pop.body.messages.map((message: { data: unknown }) => message.data)).toEqual([{ hello: 'embedded' }])

          serve.process.child.kill('SIGTERM')
          expect((await serve.process.exited(30_000)).code).toBe(0)
          expect(await pgrep(dataDir)).toEqual([])
        } finally {
          await serve.process.kill()
        }
      })
    } finally {
      await stopLeftoverPostmaster(path.join(dataDir, 'pg'))
      await rm(base, { recursive: true, force: true })
    }
  })
})
