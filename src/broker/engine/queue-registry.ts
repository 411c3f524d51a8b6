/**
 * Cached queue options per (tenant, name), for at most QUEEN_STATE_REFRESH_MS (docs/semantics.md, "Option caches").
 * Configure and queue delete invalidate entries; decisions that must not be stale (encryption, caps) are
 * re-checked inside the push transaction, so the cache is only ever a hint.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'

/** A queue's identity and options, as stored. */
export interface QueueRecord {
  id: string
  name: string
  namespace: string
  task: string
  leaseTimeSeconds: number
  retryLimit: number
  retryDelayMs: number
  priority: number
  delayedProcessingSeconds: number
  windowBufferSeconds: number
  maxSize: number
  maxPartitions: number
  dedupWindowSeconds: number
  deadLetterQueue: boolean
  retentionEnabled: boolean
  retentionSeconds: number
  completedRetentionSeconds: number
  maxWaitTimeSeconds: number
  encryptionEnabled: boolean
  createdAt: Date
}

interface QueueRow {
  id: string
  name: string
  namespace: string
  task: string
  lease_time_seconds: number
  retry_limit: number
  retry_delay_ms: number
  priority: number
  delayed_processing_seconds: number
  window_buffer_seconds: number
  max_size: number
  max_partitions: number
  dedup_window_seconds: number
  dead_letter_queue: boolean
  retention_enabled: boolean
  retention_seconds: number
  completed_retention_seconds: number
  max_wait_time_seconds: number
  encryption_enabled: boolean
  created_at: Date
}

function toRecord(row: QueueRow): QueueRecord {
  return {
    id: row.id,
    name: row.name,
    namespace: row.namespace,
    task: row.task,
    leaseTimeSeconds: row.lease_time_seconds,
    retryLimit: row.retry_limit,
    retryDelayMs: row.retry_delay_ms,
    priority: row.priority,
    delayedProcessingSeconds: row.delayed_processing_seconds,
    windowBufferSeconds: row.window_buffer_seconds,
    maxSize: row.max_size,
    maxPartitions: row.max_partitions,
    dedupWindowSeconds: row.dedup_window_seconds,
    deadLetterQueue: row.dead_letter_queue,
    retentionEnabled: row.retention_enabled,
    retentionSeconds: row.retention_seconds,
    completedRetentionSeconds: row.completed_retention_seconds,
    maxWaitTimeSeconds: row.max_wait_time_seconds,
    encryptionEnabled: row.encryption_enabled,
    createdAt: row.created_at,
  }
}

interface Entry {
  record: QueueRecord | undefined
  loadedAt: number
}

/** The per-replica cache of queue options. */
export class QueueRegistry {
  private readonly entries = new Map<string, Entry>()

  private readonly pool: pg.Pool
  private readonly maxAgeMs: number

  constructor(pool: pg.Pool, maxAgeMs: number) {
    this.pool = pool
    this.maxAgeMs = maxAgeMs
  }

  private key(tenant: string, name: string): string {
    return `${tenant}\u0000${name}`
  }

  /** The queue's record (from the cache when fresh), or undefined when it does not exist. */
  async get(tenant: string, name: string): Promise<QueueRecord | undefined> {
    const key = this.key(tenant, name)
    const cached = this.entries.get(key)
    if (cached && Date.now() - cached.loadedAt < this.maxAgeMs) return cached.record
    return this.load(tenant, name)
  }

  /** Reads the queue from PostgreSQL and refreshes the cache. */
  async load(tenant: string, name: string): Promise<QueueRecord | undefined> {
    const rows = await runQuery<QueueRow>(this.pool, 'queueGet', [tenant, name])
    const record = rows[0] ? toRecord(rows[0]) : undefined
    // Unknown queues are not cached: a push may create them at any moment.
    if (record) this.entries.set(this.key(tenant, name), { record, loadedAt: Date.now() })
    else this.entries.delete(this.key(tenant, name))
    return record
  }

  /** The cached record without a database read, if any. */
  peek(tenant: string, name: string): QueueRecord | undefined {
    return this.entries.get(this.key(tenant, name))?.record
  }

  /** Drops one queue (or, without a name, every queue of every tenant) from the cache. */
  invalidate(tenant?: string, name?: string): void {
    if (tenant === undefined || name === undefined) this.entries.clear()
    else this.entries.delete(this.key(tenant, name))
  }
}
