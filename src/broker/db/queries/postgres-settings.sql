-- GET /api/v1/analytics/postgres-stats bufferConfig and autovacuumStatus: the server settings they show.
-- No parameters.
SELECT s.name, s.setting, s.unit
FROM pg_settings s
WHERE s.name IN ('shared_buffers', 'effective_cache_size', 'work_mem', 'maintenance_work_mem', 'wal_buffers',
                 'max_connections', 'autovacuum', 'autovacuum_naptime', 'autovacuum_max_workers',
                 'autovacuum_vacuum_scale_factor')
ORDER BY s.name
