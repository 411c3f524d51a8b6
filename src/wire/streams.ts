/** The stream queries' listing (docs/http-api.md, "Streams"; snake_case like the rest of /streams/v1). */
import type { Timestamp } from './common.js'

/** One registered stream query of GET /streams/v1/queries. */
export interface StreamQueryRow {
  query_id: string
  name: string
  source_queue: string
  /** Null: the query writes to no queue. */
  sink_queue: string | null
  config_hash: string
  created_at: Timestamp
  /** The last registration that changed the hash or reset the state. */
  updated_at: Timestamp
  /** State rows held, over every source partition. */
  state_keys: number
  /** Source partitions with state rows. */
  state_partitions: number
  state_updated_at: Timestamp | null
  /** The group the SDKs read the source with: `streams.<name>`. */
  consumer_group: string
  /** Messages that group has consumed from the source queue. */
  consumed: number
  last_consumed_at: Timestamp | null
  /** Unsettled source messages of the group, from the stats snapshot. */
  lag_messages: number
  /** Age of the oldest of them, seconds. */
  lag_seconds: number
}

/** GET /streams/v1/queries. */
export interface StreamQueriesAnswer {
  queries: StreamQueryRow[]
}
