-- GET /api/v1/analytics/postgres-stats databaseCache: buffer cache hits of this database. No parameters.
SELECT d.datname AS database, d.blks_hit::bigint AS blocks_hit, d.blks_read::bigint AS blocks_read,
       round(100.0 * d.blks_hit / nullif(d.blks_hit + d.blks_read, 0), 2)::float8 AS hit_ratio,
       d.numbackends::integer AS connections, d.xact_commit::bigint AS commits,
       d.xact_rollback::bigint AS rollbacks, d.deadlocks::bigint AS deadlocks
FROM pg_stat_database d
WHERE d.datname = current_database()
