-- GET /api/v1/analytics/postgres-stats tableCache: heap block cache hits per table of schema queen.
-- No parameters.
SELECT t.relname AS table_name, coalesce(t.heap_blks_hit, 0)::bigint AS blocks_hit,
       coalesce(t.heap_blks_read, 0)::bigint AS blocks_read,
       round(100.0 * t.heap_blks_hit / nullif(t.heap_blks_hit + t.heap_blks_read, 0), 2)::float8 AS hit_ratio
FROM pg_statio_user_tables t
WHERE t.schemaname = 'queen'
ORDER BY t.relname
