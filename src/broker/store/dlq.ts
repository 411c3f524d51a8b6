/** The dead-letter listing (dlq-list statement): filters, real pagination and the total. */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'

/** Filters and page of the DLQ listing; null filters match every entry. */
export interface DeadLetterFilter {
  tenant: string
  queue: string | null
  group: string | null
  partition: string | null
  /** Failed at or after. */
  from: Date | null
  /** Failed at or before. */
  to: Date | null
  limit: number
  offset: number
}

/** A dead-lettered message (payload as stored) with the total of entries matching the filters. */
export interface DeadLetterRow {
  message_id: string
  transaction_id: string
  partition_id: string
  queue_name: string
  partition_name: string
  consumer_group: string
  error: string | null
  failures: number
  payload: unknown
  is_encrypted: boolean
  producer_sub: string | null
  message_created_at: Date
  failed_at: Date
  total: number
}

/** The tenant's dead letters, newest failure first. */
export async function listDeadLetters(pool: pg.Pool, filter: DeadLetterFilter): Promise<DeadLetterRow[]> {
  // dlq-list.sql: $1 tenant, $2 queue, $3 group, $4 partition, $5 from, $6 to, $7 limit, $8 offset.
  return runQuery<DeadLetterRow>(pool, 'dlqList', [
    filter.tenant,
    filter.queue,
    filter.group,
    filter.partition,
    filter.from,
    filter.to,
    filter.limit,
    filter.offset,
  ])
}
