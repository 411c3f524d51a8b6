-- GET /api/v1/analytics/postgres-stats bufferUsage: background writer counters (the columns present in
-- PostgreSQL 14 and later alike). No parameters.
SELECT b.buffers_clean::bigint AS buffers_clean, b.maxwritten_clean::bigint AS max_written_clean,
       b.buffers_alloc::bigint AS buffers_allocated, b.stats_reset
FROM pg_stat_bgwriter b
