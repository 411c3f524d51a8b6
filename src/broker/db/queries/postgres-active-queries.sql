-- GET /api/v1/analytics/postgres-stats activeQueries: non-idle sessions on this database other than this
-- one, longest running first (query text cut to 500 characters; other roles' text reads as
-- "<insufficient privilege>"). No parameters.
SELECT a.pid, a.usename AS user_name, a.application_name, a.state, a.wait_event_type, a.wait_event,
       (extract(epoch FROM clock_timestamp() - a.query_start) * 1000)::float8 AS duration_ms,
       left(a.query, 500) AS query
FROM pg_stat_activity a
WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.state IS DISTINCT FROM 'idle'
  AND a.backend_type = 'client backend'
ORDER BY a.query_start NULLS LAST
LIMIT 50
