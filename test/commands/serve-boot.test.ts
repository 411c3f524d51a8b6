/**
 * `queenctl serve` at boot: three replicas booting at once against one empty database all come up (the
 * schema is applied under the advisory lock), and the broker with its embedded PostgreSQL also runs as an
 * unprivileged user (PostgreSQL then runs as that same user).
 */
import { execFile, spawn } from 'node:child_process'
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { SCHEMA_LOCK_KEY } from '../../src/broker/db/broker-schema.js'
import { readPasswdUser } from '../../src/platform/postgres/system-users.js'
import { http } from '../support/broker.js'
import {
  createEmptyDatabase,
  dropDatabase,
  pgEnv,
  REPO_ROOT,
  startCli,
  type TestProcess,
} from '../support/cli-harness.js'
import { until } from '../support/poll.js'
import { trackResource } from '../support/resources.js'

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(`/tmp/queenctl-${prefix}-`)
  dirs.push(dir)
  return dir
}

/** Whether `user` can read `dir` (every parent must be enterable). */
async function reachableBy(dir: string, user: { uid: number; gid: number }): Promise<boolean> {
  return promisify(execFile)('/bin/sh', ['-c', 'test -r "$1/bin/run.js"', 'sh', dir], { uid: user.uid, gid: user.gid })
    .then(() => true)
    .catch(() => false)
}

/**
 * The package as `user` can run it: the checkout itself, or, when it lives in a folder that user cannot
 * enter (a 0700 temp folder, /root), a copy of what `bin/run.js` needs (hard links where the file system
 * allows, so no data is copied).
 */
async function runnableCheckout(user: { uid: number; gid: number }): Promise<string> {
  if (await reachableBy(REPO_ROOT, user)) return REPO_ROOT
  const stage = await tempDir('nonroot-package')
  await chmod(stage, 0o755)
  for (const entry of ['bin', 'dist', 'node_modules', 'package.json', 'oclif.manifest.json']) {
    const from = path.join(REPO_ROOT, entry)
    const to = path.join(stage, entry)
    await promisify(execFile)('cp', ['-al', from, to]).catch(() => promisify(execFile)('cp', ['-a', from, to]))
  }
  return stage
}

describe('serve at boot', () => {
  it('brings up three replicas booting at once against one empty database', async () => {
    const database = await createEmptyDatabase('serve_three')
    const brokers: TestProcess[] = []
    try {
      for (let replica = 0; replica < 3; replica++) {
        brokers.push(
          startCli(['serve'], {
            env: {
              ...pgEnv(database),
              PORT: '0',
              HOST: '127.0.0.1',
              QUEEN_SERVER_ID: `replica-${replica}`,
              FILE_BUFFER_DIR: await tempDir(`spool-${replica}`),
            },
          }),
        )
      }
      const urls = await Promise.all(
        brokers.map(async (broker) => {
          const match = await broker.waitFor(/\blistening\b.*\bhttp=([\d.]+):(\d+)/, 60_000)
          return `http://${match[1]}:${match[2]}`
        }),
      )
      // Exactly one applied the files; the others found them applied (under the lock).
      const outputs = brokers.map((broker) => broker.output())
      expect(outputs.filter((output) => /schema applied/.test(output))).toHaveLength(1)
      expect(outputs.filter((output) => /schema up to date/.test(output))).toHaveLength(2)
      for (const url of urls) {
        const health = await http({ url }, 'GET', '/health')
        expect(health.status).toBe(200)
      }
      // Any replica serves any request.
      const pushed = await http({ url: urls[0]! }, 'POST', '/api/v1/push', {
        items: [{ queue: 'three', payload: 'hi' }],
      })
      expect(pushed.body[0].status).toBe('queued')
      const popped = await http({ url: urls[2]! }, 'GET', '/api/v1/pop/queue/three')
      expect(popped.body.messages[0].data).toBe('hi')
    } finally {
      for (const broker of brokers) await broker.kill()
      await dropDatabase(database)
    }
  })

  it('boots once a schema lock held past ten seconds is released (a slow apply elsewhere), not cut short', async () => {
    const database = await createEmptyDatabase('serve_lock_wait')
    const holder = new pg.Client({ ...inject('pgConnection'), database })
    await holder.connect()
    await holder.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK_KEY])
    const broker = startCli(['serve'], {
      env: { ...pgEnv(database), PORT: '0', HOST: '127.0.0.1', FILE_BUFFER_DIR: await tempDir('spool-lock') },
    })
    try {
      await until('the broker to wait for the schema lock', async () => {
        const waiting = await holder.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1`,
          [SCHEMA_LOCK_KEY],
        )
        return (waiting.rowCount ?? 0) > 0
      })
      // Longer than fastify's default plugin timeout (10 s), which used to end the boot here.
      await new Promise((resolve) => setTimeout(resolve, 11_000))
      expect(broker.output()).not.toMatch(/listening|did not start/)
      await holder.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK_KEY])
      const match = await broker.waitFor(/\blistening\b.*\bhttp=([\d.]+):(\d+)/, 60_000)
      expect((await http({ url: `http://${match[1]}:${match[2]}` }, 'GET', '/health')).status).toBe(200)
    } finally {
      await broker.kill()
      await holder.end()
      await dropDatabase(database)
    }
  })

  it('runs as an unprivileged user with its embedded PostgreSQL running as that user', async (context) => {
    const user = await readPasswdUser('postgres')
    if (process.getuid?.() !== 0 || !user) {
      // Not root: this whole suite already runs the embedded server as the current user.
      context.skip()
      return
    }
    const dataDir = await tempDir('nonroot-data')
    const spool = await tempDir('nonroot-spool')
    await chown(dataDir, user.uid, user.gid)
    await chown(spool, user.uid, user.gid)
    const checkout = await runnableCheckout(user)
    const child = spawn(process.execPath, ['bin/run.js', 'serve'], {
      cwd: checkout,
      uid: user.uid,
      gid: user.gid,
      env: {
        PATH: process.env.PATH,
        HOME: '/tmp',
        PORT: '0',
        HOST: '127.0.0.1',
        QUEEN_DATA_DIR: dataDir,
        FILE_BUFFER_DIR: spool,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const untrack = trackResource('non-root serve')
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    try {
      const deadline = Date.now() + 60_000
      let match: RegExpMatchArray | null = null
      while (!match && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        match = /\blistening\b.*\bhttp=([\d.]+):(\d+)/.exec(output)
      }
      expect(match, output).not.toBeNull()
      expect(output).toMatch(/database mode=embedded .*run_as="?current user"?/)
      const url = `http://${match![1]}:${match![2]}`
      const pushed = await http({ url }, 'POST', '/api/v1/push', { items: [{ queue: 'nonroot', payload: 1 }] })
      expect(pushed.body[0].status).toBe('queued')
      child.kill('SIGTERM')
      const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)))
      expect(code).toBe(0)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
      untrack()
    }
  })
})
