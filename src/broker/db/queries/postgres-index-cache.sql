-- GET /api/v1/analytics/postgres-stats indexCache: index block cache hits per index of schema queen.
-- No parameters.
SELECT i.relname AS table_name, i.indexrelname AS index_name, coalesce(i.idx_blks_hit, 0)::bigint AS blocks_hit,
       coalesce(i.idx_blks_read, 0)::bigint AS blocks_read,
       round(100.0 * i.idx_blks_hit / nullif(i.idx_blks_hit + i.idx_blks_read, 0), 2)::float8 AS hit_ratio
FROM pg_statio_user_indexes i
WHERE i.schemaname = 'queen'
ORDER BY i.relname, i.indexrelname
