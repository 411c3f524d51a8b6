/** The registered stream queries of a tenant with their state and source figures (stream-query-list.sql). */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'

/** One stream query as the listing reads it. */
export interface StreamQueryListRow {
  id: string
  name: string
  source_queue: string
  sink_queue: string | null
  config_hash: string
  created_at: Date
  updated_at: Date
  state_keys: number
  state_partitions: number
  state_updated_at: Date | null
  consumer_group: string
  consumed: number
  last_consumed_at: Date | null
  lag_messages: number
  lag_seconds: number
}

/** Every stream query of the tenant, by name. */
export function listStreamQueries(pool: pg.Pool, tenant: string): Promise<StreamQueryListRow[]> {
  return runQuery<StreamQueryListRow>(pool, 'streamQueryList', [tenant])
}
