/**
 * GET /api/v1/analytics/postgres-stats (docs/http-api.md, "Status and analytics", route 44): PostgreSQL's statistics
 * views for the `queen` schema. Each section is read on its own; a section the broker's role may not read (or a view a
 * server version lacks) is `null` instead of failing the whole answer.
 */
import type { FastifyInstance } from 'fastify'
import { readPostgresStats, type CacheRow, type PostgresStats, type SettingRow } from '../../store/postgres-stats.js'
import type { PostgresStatsAnswer } from '../../../wire/index.js'

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

const iso = (value: Date | null) => (value ? value.toISOString() : null)
const hitRatio = (hit: number, read: number) =>
  hit + read > 0 ? Math.round((10_000 * hit) / (hit + read)) / 100 : null

function cacheItems(rows: CacheRow[]) {
  return rows.map((row) => ({
    table: row.table_name,
    ...(row.index_name === undefined ? {} : { index: row.index_name }),
    blocksHit: row.blocks_hit,
    blocksRead: row.blocks_read,
    hitRatio: row.hit_ratio,
  }))
}

export function registerPostgresStatsRoute(app: FastifyInstance): void {
  app.get('/api/v1/analytics/postgres-stats', async (request) => {
    const stats = await readPostgresStats(app.broker.pool, {
      onSectionError: (error) => request.log.debug({ err: error }, 'postgres-stats section unavailable'),
    })
    return postgresStatsBody(stats)
  })
}

/** The wire answer: each section renamed, plus the summaries computed from several sections. */
function postgresStatsBody(stats: PostgresStats): PostgresStatsAnswer {
  const database = stats.databaseCache?.[0]
  const databaseCache = database
    ? {
        database: database.database,
        blocksHit: database.blocks_hit,
        blocksRead: database.blocks_read,
        hitRatio: database.hit_ratio,
        connections: database.connections,
        commits: database.commits,
        rollbacks: database.rollbacks,
        deadlocks: database.deadlocks,
      }
    : null
  const tableCache = stats.tableCache && cacheItems(stats.tableCache)
  const indexCache = stats.indexCache && cacheItems(stats.indexCache)
  const activity = stats.tableActivity
  const activeQueries =
    stats.activeQueries?.map((row) => ({
      pid: row.pid,
      user: row.user_name,
      application: row.application_name,
      state: row.state,
      waitEventType: row.wait_event_type,
      waitEvent: row.wait_event,
      durationMs: typeof row.duration_ms === 'number' ? Math.round(row.duration_ms) : null,
      query: row.query,
    })) ?? null
  const settings = stats.settings && new Map<string, SettingRow>(stats.settings.map((row) => [row.name, row]))
  const usage = stats.bufferUsage?.[0]
  const bufferUsage = usage
    ? {
        buffersClean: usage.buffers_clean,
        maxWrittenClean: usage.max_written_clean,
        buffersAllocated: usage.buffers_allocated,
        statsReset: iso(usage.stats_reset),
      }
    : null
  const tableSizes =
    stats.tableSizes?.map((row) => ({
      table: row.table_name,
      totalBytes: row.total_bytes,
      tableBytes: row.table_bytes,
      indexBytes: row.index_bytes,
      estimatedRows: row.estimated_rows,
    })) ?? null

  const sum = (rows: { blocksHit: number; blocksRead: number }[], key: 'blocksHit' | 'blocksRead') =>
    rows.reduce((total, row) => total + row[key], 0)
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
}
