/**
 * One creation of queues or partitions at a time per tenant, over every replica (docs/gateway.md, "Quotas and rate
 * limits"). A request that would add a queue or partition to a tenant with such a quota takes this lock, lists the
 * tenant afresh, decides, and holds the lock until the broker answered: the next creator's listing then shows what
 * the previous one created, so replicas together never create past the quota. Creations are rare (a new queue or
 * partition); pushes to known names never take it.
 *
 * The lock is a PostgreSQL session advisory lock on one connection of its own per replica, taken with try-lock and
 * retried, so a replica waiting for another's lock never blocks its own connection; inside a replica, requests of
 * one tenant queue in memory first.
 */
import { createHash } from 'node:crypto'
import pg from 'pg'
import type { Logger } from 'pino'

/** The advisory lock's class: the bytes "QPLK"; the objects are tenants (a hash of the id). */
const LOCK_CLASS = 0x51504c4b
const RETRY_MS = 10
/** Waiting longer than this for another replica's creation answers 503 (the quota cannot be checked). */
const WAIT_LIMIT_MS = 10_000
/** A lock whose request never reported back is released after this (above the longest broker wait). */
const HOLD_LIMIT_MS = 330_000

function tenantKey(tenantId: string): number {
  return createHash('sha256').update(tenantId).digest().readInt32BE(0)
}

export class CreationLocks {
  private client: pg.Client | undefined
  private connecting: Promise<pg.Client> | undefined
  private readonly queues = new Map<string, Promise<void>>()
  private readonly connection: pg.ClientConfig
  private readonly log: Logger
  private closed = false

  constructor(connection: pg.ClientConfig, log: Logger) {
    this.connection = connection
    this.log = log
  }

  /** Waits for the tenant's lock; the returned function releases it (once; later calls do nothing). */
  async acquire(tenantId: string): Promise<() => void> {
    const previous = this.queues.get(tenantId) ?? Promise.resolve()
    let releaseLocal!: () => void
    const mine = new Promise<void>((resolve) => {
      releaseLocal = resolve
    })
    const chained = previous.then(() => mine)
    this.queues.set(tenantId, chained)
    const cleanUp = () => {
      if (this.queues.get(tenantId) === chained) this.queues.delete(tenantId)
      releaseLocal()
    }
    await previous
    try {
      await this.lockInDatabase(tenantId)
    } catch (error) {
      cleanUp()
      throw error
    }
    let released = false
    const release = () => {
      if (released) return
      released = true
      clearTimeout(limit)
      this.unlockInDatabase(tenantId)
        .catch((error: unknown) => this.log.warn({ err: error, tenant: tenantId }, 'creation lock: release failed'))
        .finally(cleanUp)
    }
    const limit = setTimeout(release, HOLD_LIMIT_MS)
    limit.unref()
    return release
  }

  async close(): Promise<void> {
    this.closed = true
    const client = this.client
    this.client = undefined
    await client?.end().catch(() => undefined)
  }

  private async lockInDatabase(tenantId: string): Promise<void> {
    const startedAt = Date.now()
    for (;;) {
      const client = await this.session()
      const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
        LOCK_CLASS,
        tenantKey(tenantId),
      ])
      if (result.rows[0]?.locked) return
      if (Date.now() - startedAt > WAIT_LIMIT_MS) {
        throw new Error('another gateway replica is creating queues for this tenant; retry')
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS))
    }
  }

  private async unlockInDatabase(tenantId: string): Promise<void> {
    const client = this.client
    // A lost session released its locks with it.
    if (!client) return
    await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, tenantKey(tenantId)])
  }

  private session(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('gateway closing'))
    if (this.client) return Promise.resolve(this.client)
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined
    })
    return this.connecting
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ ...this.connection, application_name: 'queenctl-proxy-creation-lock' })
    client.on('error', () => undefined)
    client.on('end', () => {
      if (this.client === client) this.client = undefined
    })
    await client.connect()
    this.client = client
    return client
  }
}
