/**
 * GET /api/v1/analytics/postgres-stats (http-api.md 9, route 44): PostgreSQL's statistics views for the
 * `queen` schema. Each section is read on its own; a section the broker's role may not read (or a view a
 * server version lacks) is `null` instead of failing the whole answer.
 */
import type { FastifyInstance } from 'fastify'
import type pg from 'pg'
import { runQuery } from '../../db/pool.js'
import type { QueryName } from '../../db/queries/index.js'

type Row = Record<string, unknown>

interface SettingRow {
  name: string
  setting: string
  unit: string | null
}

const UNIT_BYTES: Record<string, number> = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 }

/** A memory setting in bytes (`shared_buffers` is counted in `8kB` blocks); null when unset (-1) or unknown. */
export function settingBytes(setting: string | undefined, unit: string | null | undefined): number | null {
  if (setting === undefined) return null
  const value = Number(setting)
  const match = /^(\d*)(B|kB|MB|GB|TB)$/.exec(unit ?? '')
  if (!Number.isFinite(value) || value < 0 || !match) return null
  const blocks = match[1] ? Number(match[1]) : 1
  return value * blocks * (UNIT_BYTES[match[2] ?? 'B'] ?? 1)
}

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : null)
const hitRatio = (hit: number, read: number) =>
  hit + read > 0 ? Math.round((10_000 * hit) / (hit + read)) / 100 : null

/** Runs one section; null when PostgreSQL refuses it. */
async function section<T>(
  client: pg.PoolClient,
  name: QueryName,
  shape: (rows: Row[]) => T,
  onError: (error: unknown) => void,
): Promise<T | null> {
  try {
    return shape(await runQuery<Row>(client, name))
  } catch (error) {
    onError(error)
    return null
  }
}

export function registerPostgresStatsRoute(app: FastifyInstance): void {
  app.get('/api/v1/analytics/postgres-stats', async (request) => {
    const onError = (error: unknown) => request.log.debug({ err: error }, 'postgres-stats section unavailable')
    // One connection for every section, one statement at a time: this is a dashboard poll, not a hot path.
    const client = await app.broker.pool.connect()
    try {
      const read = <T>(name: QueryName, shape: (rows: Row[]) => T) => section(client, name, shape, onError)
      const databaseCache = await read('postgresDatabaseCache', (rows) => {
        const row = rows[0]
        if (!row) return null
        return {
          database: row.database,
          blocksHit: row.blocks_hit,
          blocksRead: row.blocks_read,
          hitRatio: row.hit_ratio,
          connections: row.connections,
          commits: row.commits,
          rollbacks: row.rollbacks,
          deadlocks: row.deadlocks,
        }
      })
      const cacheRows = (rows: Row[]) =>
        rows.map((row) => ({
          table: row.table_name,
          ...(row.index_name === undefined ? {} : { index: row.index_name }),
          blocksHit: row.blocks_hit,
          blocksRead: row.blocks_read,
          hitRatio: row.hit_ratio,
        }))
      const tableCache = await read('postgresTableCache', cacheRows)
      const indexCache = await read('postgresIndexCache', cacheRows)
      const activity = await read('postgresTableActivity', (rows) => rows)
      const activeQueries = await read('postgresActiveQueries', (rows) =>
        rows.map((row) => ({
          pid: row.pid,
          user: row.user_name,
          application: row.application_name,
          state: row.state,
          waitEventType: row.wait_event_type,
          waitEvent: row.wait_event,
          durationMs: typeof row.duration_ms === 'number' ? Math.round(row.duration_ms) : null,
          query: row.query,
        })),
      )
      const settings = await read(
        'postgresSettings',
        (rows) => new Map((rows as unknown as SettingRow[]).map((row) => [row.name, row])),
      )
      const bufferUsage = await read('postgresBufferUsage', (rows) => {
        const row = rows[0]
        if (!row) return null
        return {
          buffersClean: row.buffers_clean,
          maxWrittenClean: row.max_written_clean,
          buffersAllocated: row.buffers_allocated,
          statsReset: iso(row.stats_reset),
        }
      })
      const tableSizes = await read('postgresTableSizes', (rows) =>
        rows.map((row) => ({
          table: row.table_name,
          totalBytes: row.total_bytes,
          tableBytes: row.table_bytes,
          indexBytes: row.index_bytes,
          estimatedRows: row.estimated_rows,
        })),
      )

      const sum = (rows: { blocksHit: unknown; blocksRead: unknown }[], key: 'blocksHit' | 'blocksRead') =>
        rows.reduce((total, row) => total + Number(row[key] ?? 0), 0)
      const setting = (name: string) => settings?.get(name)
      const bytes = (name: string) => settingBytes(setting(name)?.setting, setting(name)?.unit)
      return {
        databaseCache,
        tableCache,
        indexCache,
        cacheSummary:
          tableCache && indexCache
            ? {
                tableHitRatio: hitRatio(sum(tableCache, 'blocksHit'), sum(tableCache, 'blocksRead')),
                indexHitRatio: hitRatio(sum(indexCache, 'blocksHit'), sum(indexCache, 'blocksRead')),
                tableBlocksHit: sum(tableCache, 'blocksHit'),
                tableBlocksRead: sum(tableCache, 'blocksRead'),
                indexBlocksHit: sum(indexCache, 'blocksHit'),
                indexBlocksRead: sum(indexCache, 'blocksRead'),
              }
            : null,
        deadTuples:
          activity?.map((row) => ({
            table: row.table_name,
            liveTuples: row.live_tuples,
            deadTuples: row.dead_tuples,
            deadRatio: row.dead_ratio,
            lastVacuum: iso(row.last_vacuum),
            lastAutovacuum: iso(row.last_autovacuum),
          })) ?? null,
        hotUpdates:
          activity?.map((row) => ({
            table: row.table_name,
            updates: row.updates,
            hotUpdates: row.hot_updates,
            hotRatio: row.hot_ratio,
          })) ?? null,
        activeQueries,
        autovacuumStatus:
          activity && settings
            ? {
                enabled: setting('autovacuum')?.setting === 'on',
                naptimeSeconds: Number(setting('autovacuum_naptime')?.setting ?? 0),
                maxWorkers: Number(setting('autovacuum_max_workers')?.setting ?? 0),
                vacuumScaleFactor: Number(setting('autovacuum_vacuum_scale_factor')?.setting ?? 0),
                tables: activity.map((row) => ({
                  table: row.table_name,
                  lastAutovacuum: iso(row.last_autovacuum),
                  lastAutoanalyze: iso(row.last_autoanalyze),
                  autovacuumCount: row.autovacuum_count,
                  autoanalyzeCount: row.autoanalyze_count,
                  modifiedSinceAnalyze: row.modified_since_analyze,
                })),
              }
            : null,
        bufferConfig: settings
          ? {
              sharedBuffersBytes: bytes('shared_buffers'),
              effectiveCacheSizeBytes: bytes('effective_cache_size'),
              workMemBytes: bytes('work_mem'),
              maintenanceWorkMemBytes: bytes('maintenance_work_mem'),
              walBuffersBytes: bytes('wal_buffers'),
              maxConnections: Number(setting('max_connections')?.setting ?? 0),
            }
          : null,
        bufferUsage,
        tableSizes,
      }
    } finally {
      client.release()
    }
  })
}
