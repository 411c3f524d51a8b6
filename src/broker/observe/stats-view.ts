/**
 * This replica's copy of the stats snapshot's totals (schema 009_stats.sql), reloaded by the stats job after
 * each cycle whether this replica or another refreshed it. Prometheus scrapes and the `sizes` log block read
 * it, so neither touches PostgreSQL.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import type { MessageCountersRow } from '../db/message-counters.js'
import type { MessageCounters } from '../../wire/index.js'

/** Totals over every tenant. */
export interface SystemStats extends MessageCounters {
  queues: number
  partitions: number
  /** When the snapshot was computed; null before the first refresh. */
  refreshedAt: Date | null
}

/** Counters of one queue. */
export interface QueueStats {
  tenant: string
  queue: string
  pending: number
  processing: number
  deadLetter: number
}

/** Lag of one consumer group on one queue (docs/semantics.md, "Lag"). */
export interface ConsumerLagStats {
  tenant: string
  queue: string
  group: string
  lagMessages: number
  lagSeconds: number
}

interface SystemRow extends MessageCountersRow {
  queues: number
  partitions: number
  refreshed_at: Date | null
}

interface QueueRow {
  tenant: string
  queue_name: string
  pending: number
  processing: number
  dead_letter: number
}

interface ConsumerRow {
  tenant: string
  queue_name: string
  consumer_group: string
  lag_messages: number
  lag_seconds: number
}

/** The cached snapshot. */
export class StatsView {
  system: SystemStats = {
    queues: 0,
    partitions: 0,
    total: 0,
    pending: 0,
    processing: 0,
    completed: 0,
    failed: 0,
    deadLetter: 0,
    refreshedAt: null,
  }
  queues: QueueStats[] = []
  consumers: ConsumerLagStats[] = []

  /** Reads the snapshot's totals, queues and consumer lag. */
  async reload(db: pg.Pool): Promise<void> {
    // One after the other: a background job should hold at most one connection of the request pool.
    const systemRows = await runQuery<SystemRow>(db, 'statsSystem')
    const queueRows = await runQuery<QueueRow>(db, 'statsQueues')
    const consumerRows = await runQuery<ConsumerRow>(db, 'statsConsumers')
    const system = systemRows[0]
    if (system) {
      this.system = {
        queues: system.queues,
        partitions: system.partitions,
        total: system.total,
        pending: system.pending,
        processing: system.processing,
        completed: system.completed,
        failed: system.failed,
        deadLetter: system.dead_letter,
        refreshedAt: system.refreshed_at,
      }
    }
    this.queues = queueRows.map((row) => ({
      tenant: row.tenant,
      queue: row.queue_name,
      pending: row.pending,
      processing: row.processing,
      deadLetter: row.dead_letter,
    }))
    this.consumers = consumerRows.map((row) => ({
      tenant: row.tenant,
      queue: row.queue_name,
      group: row.consumer_group,
      lagMessages: row.lag_messages,
      lagSeconds: row.lag_seconds,
    }))
  }

  /** Whole seconds since the snapshot was computed; null before the first refresh. */
  ageSeconds(now: number = Date.now()): number | null {
    const at = this.system.refreshedAt
    return at ? Math.max(0, Math.floor((now - at.getTime()) / 1000)) : null
  }
}
