/**
 * Metering across a crash (docs/gateway.md, "Metering"): a `proxy serve` process is SIGKILLed while a load runs.
 * What it had written must never exceed what the clients saw stored, and must hold every push answered more than
 * one flush interval (plus its jitter) before the kill: a crash loses at most the last interval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { readUsage } from '../../src/gateway/store/usage.js'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { createEmptyDatabase, dropDatabase, startCli } from '../support/cli-harness.js'
import { databaseConnection, serverConnection } from '../support/database.js'
import { applyGatewaySchema } from '../../src/gateway/gateway-database.js'

const FLUSH_MS = 1000
// BackgroundLoop jitters each interval by up to 10 %; the rest is scheduling slack on a loaded machine.
const LOSS_WINDOW_MS = FLUSH_MS * 1.1 + 400

describe('metering across a gateway crash', () => {
  let broker: TestBroker
  let database: string
  let db: pg.Pool

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_crash', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    database = await createEmptyDatabase('gw_crash')
    await applyGatewaySchema(databaseConnection(database))
    db = new pg.Pool({ ...databaseConnection(database), max: 2 })
  })
  afterAll(async () => {
    await db?.end()
    if (database) await dropDatabase(database)
    await broker?.close()
  })

  it('loses at most the last flush interval of counts when SIGKILLed under load', async () => {
    await createTenant(db, 'acme')
    const { key } = await createApiKey(db, { tenant: 'acme', role: 'read-write' })
    const server = serverConnection()
    const gateway = startCli(['proxy', 'serve', '--port', '0', '--host', '127.0.0.1', '--upstreams', broker.url], {
      env: {
        PROXY_PG_HOST: String(server.host ?? '127.0.0.1'),
        PROXY_PG_PORT: String(server.port ?? 5432),
        PROXY_PG_USER: String(server.user ?? 'postgres'),
        PROXY_PG_PASSWORD: String(server.password ?? ''),
        PROXY_PG_DATABASE: database,
        PROXY_METERING_FLUSH_MS: String(FLUSH_MS),
      },
    })
    try {
      const match = await gateway.waitFor(/\blistening\b.*\bhttp=([\d.]+):(\d+)/, 30_000)
      const url = `http://${match[1]}:${match[2]}`
      // The ledger: when each push the broker stored was answered.
      const storedAt: number[] = []
      let stop = false
      const worker = async (id: number) => {
        for (let n = 0; !stop; n++) {
          try {
            const response = await fetch(`${url}/api/v1/push`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ items: [{ queue: 'crash', payload: { id, n } }] }),
            })
            const body = (await response.json()) as { status: string }[]
            if (response.status === 200 && body[0]?.status === 'queued') storedAt.push(Date.now())
          } catch {
            return // the gateway is gone
          }
        }
      }
      const workers = [0, 1, 2, 3].map(worker)
      await new Promise((resolve) => setTimeout(resolve, 3500))
      const killedAt = Date.now()
      gateway.child.kill('SIGKILL')
      stop = true
      await Promise.all(workers)
      await gateway.exited(10_000)

      const usage = await readUsage(db, {
        tenant: 'acme',
        from: new Date(killedAt - 3_600_000 * 2),
        to: new Date(killedAt + 60_000),
      })
      const metered = usage.reduce((sum, row) => sum + row.messagesPushed, 0)
      const settledBefore = storedAt.filter((at) => at < killedAt - LOSS_WINDOW_MS).length
      process.stderr.write(
        `metering crash: stored ${storedAt.length}, metered ${metered}, answered before the last interval ${settledBefore}\n`,
      )
      expect(storedAt.length).toBeGreaterThan(100)
      // Never more than was stored; everything answered before the last interval.
      expect(metered).toBeLessThanOrEqual(storedAt.length)
      expect(metered).toBeGreaterThanOrEqual(settledBefore)
    } finally {
      await gateway.kill()
    }
  })
})
