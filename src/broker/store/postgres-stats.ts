/**
 * PostgreSQL's statistics views for the `queen` schema (postgres-* statements), read section by section on
 * one connection; a section the broker's role may not read, or a view the server lacks, comes back null.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import type { QueryName } from '../db/queries/index.js'

/** Buffer cache hits of this database. */
export interface DatabaseCacheRow {
  database: string
  blocks_hit: number
  blocks_read: number
  /** Percent; null before any block was read. */
  hit_ratio: number | null
  connections: number
  commits: number
  rollbacks: number
  deadlocks: number
}

/** Block cache hits of one table (heap) or, with `index_name`, one index. */
export interface CacheRow {
  table_name: string
  index_name?: string
  blocks_hit: number
  blocks_read: number
  hit_ratio: number | null
}

/** Row activity and vacuum history of one table. */
export interface TableActivityRow {
  table_name: string
  live_tuples: number
  dead_tuples: number
  dead_ratio: number | null
  updates: number
  hot_updates: number
  hot_ratio: number | null
  modified_since_analyze: number
  last_vacuum: Date | null
  last_autovacuum: Date | null
  last_analyze: Date | null
  last_autoanalyze: Date | null
  vacuum_count: number
  autovacuum_count: number
  autoanalyze_count: number
}

/** A non-idle session on this database. */
export interface ActiveQueryRow {
  pid: number
  user_name: string | null
  application_name: string | null
  state: string | null
  wait_event_type: string | null
  wait_event: string | null
  duration_ms: number | null
  query: string | null
}

/** A server setting, as pg_settings spells it. */
export interface SettingRow {
  name: string
  setting: string
  unit: string | null
}

/** Background writer counters. */
export interface BufferUsageRow {
  buffers_clean: number
  max_written_clean: number
  buffers_allocated: number
  stats_reset: Date | null
}

/** On-disk size of one table. */
export interface TableSizeRow {
  table_name: string
  total_bytes: number
  table_bytes: number
  index_bytes: number
  estimated_rows: number
}

/** Every section's rows; null where PostgreSQL refused the section. */
export interface PostgresStats {
  databaseCache: DatabaseCacheRow[] | null
  tableCache: CacheRow[] | null
  indexCache: CacheRow[] | null
  tableActivity: TableActivityRow[] | null
  activeQueries: ActiveQueryRow[] | null
  settings: SettingRow[] | null
  bufferUsage: BufferUsageRow[] | null
  tableSizes: TableSizeRow[] | null
}

/** Reads every section; `onSectionError` hears why a section is null. */
export async function readPostgresStats(
  pool: pg.Pool,
  params: { onSectionError: (error: unknown) => void },
): Promise<PostgresStats> {
  // One connection for every section, one statement at a time: this is a dashboard poll, not a hot path.
  const client = await pool.connect()
  // The postgres-*.sql statements take no parameters.
  const section = async <Row extends pg.QueryResultRow>(name: QueryName): Promise<Row[] | null> => {
    try {
      return await runQuery<Row>(client, name)
    } catch (error) {
      params.onSectionError(error)
      return null
    }
  }
  try {
    return {
      databaseCache: await section<DatabaseCacheRow>('postgresDatabaseCache'),
      tableCache: await section<CacheRow>('postgresTableCache'),
      indexCache: await section<CacheRow>('postgresIndexCache'),
      tableActivity: await section<TableActivityRow>('postgresTableActivity'),
      activeQueries: await section<ActiveQueryRow>('postgresActiveQueries'),
      settings: await section<SettingRow>('postgresSettings'),
      bufferUsage: await section<BufferUsageRow>('postgresBufferUsage'),
      tableSizes: await section<TableSizeRow>('postgresTableSizes'),
    }
  } finally {
    client.release()
  }
}
