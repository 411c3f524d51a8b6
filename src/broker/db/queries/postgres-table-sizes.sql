-- GET /api/v1/analytics/postgres-stats tableSizes: on-disk size of every table of schema queen, largest
-- first. No parameters.
SELECT c.relname AS table_name, pg_total_relation_size(c.oid)::bigint AS total_bytes,
       pg_relation_size(c.oid)::bigint AS table_bytes, pg_indexes_size(c.oid)::bigint AS index_bytes,
       greatest(c.reltuples, 0)::bigint AS estimated_rows
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'queen' AND c.relkind IN ('r', 'p')
ORDER BY 2 DESC, 1
