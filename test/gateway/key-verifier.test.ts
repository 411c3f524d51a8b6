/**
 * The key verifier on the gateway's real database (docs/gateway.md, "Tenants and API keys"): a gateway that starts
 * under load sees a burst of first requests with the same key. They share one check (one lookup, one scrypt)
 * instead of each paying scrypt's 30-50 ms: found by the bench's e2e scenario, whose pushes through a fresh
 * gateway queued for over a second behind hundreds of concurrent scrypt runs.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyGatewaySchema } from '../../src/gateway/gateway-database.js'
import { KeyVerifier } from '../../src/gateway/keys/key-verifier.js'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { createEmptyDatabase, dropDatabase } from '../support/cli-harness.js'
import { databaseConnection } from '../support/database.js'

/** A real pool that counts the statements it was given. */
function countingPool(config: pg.PoolConfig): pg.Pool & { statements: number } {
  const pool = Object.assign(new pg.Pool(config), { statements: 0 })
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown
  pool.query = ((...args: unknown[]) => {
    pool.statements += 1
    return query(...args)
  }) as typeof pool.query
  return pool
}

describe('the key verifier', () => {
  let database: string
  let pool: pg.Pool & { statements: number }
  let key: string

  beforeAll(async () => {
    database = await createEmptyDatabase('keyverifier')
    await applyGatewaySchema(databaseConnection(database))
    pool = countingPool({ ...databaseConnection(database), max: 4 })
    await createTenant(pool, 'acme')
    key = (await createApiKey(pool, { tenant: 'acme', role: 'producer' })).key
  })

  afterAll(async () => {
    await pool?.end()
    if (database) await dropDatabase(database)
  })

  it('checks a key once for a burst of 200 concurrent first requests, and admits them all', async () => {
    const verifier = new KeyVerifier(pool, () => true)
    pool.statements = 0
    const verdicts = await Promise.all(Array.from({ length: 200 }, () => verifier.verify(key)))
    expect(verdicts.filter((verdict) => verdict.ok)).toHaveLength(200)
    expect(pool.statements).toBe(1)
  })

  it('refuses a burst with a wrong secret after one check, and keeps refusing it without the database', async () => {
    const verifier = new KeyVerifier(pool, () => true)
    const wrong = `${key.slice(0, -4)}${key.endsWith('aaaa') ? 'bbbb' : 'aaaa'}`
    pool.statements = 0
    const verdicts = await Promise.all(Array.from({ length: 50 }, () => verifier.verify(wrong)))
    expect(verdicts.every((verdict) => !verdict.ok && verdict.status === 401)).toBe(true)
    expect(await verifier.verify(wrong)).toMatchObject({ ok: false, error: 'Invalid API key' })
    expect(pool.statements).toBe(1)
    // The right key still gets in on the same verifier.
    expect(await verifier.verify(key)).toMatchObject({ ok: true })
  })
})
