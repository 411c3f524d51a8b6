-- GET /api/v1/analytics/system-metrics and /worker-metrics: each replica's process rows per bucket of $3
-- minutes (epoch-aligned): CPU and idle connections averaged, memory, lag, connections and parked pops at
-- their maximum, requests summed; hostname and pid as last written.
-- $1 from, $2 to, $3 bucket minutes, $4 hostname or NULL, $5 server id or NULL.
WITH width AS (
  SELECT make_interval(mins => $3::integer) AS w, timestamptz '1970-01-01 00:00:00+00' AS origin
)
SELECT date_bin(width.w, s.bucket, width.origin) AS bucket, s.server_id,
       (array_agg(s.hostname ORDER BY s.bucket DESC))[1] AS hostname,
       (array_agg(s.pid ORDER BY s.bucket DESC))[1] AS pid,
       avg(s.cpu_user_percent)::float8 AS cpu_user_percent, avg(s.cpu_system_percent)::float8 AS cpu_system_percent,
       max(s.rss_bytes)::bigint AS rss_bytes, max(s.heap_used_bytes)::bigint AS heap_used_bytes,
       max(s.event_loop_lag_p99_ms)::float8 AS event_loop_lag_p99_ms, max(s.pool_total)::integer AS pool_total,
       avg(s.pool_idle)::float8 AS pool_idle, max(s.pool_waiting)::integer AS pool_waiting,
       sum(s.requests)::bigint AS requests, max(s.parked_pops)::integer AS parked_pops
FROM width, queen.metrics_server_minute s
WHERE s.bucket >= date_bin(width.w, $1::timestamptz, width.origin) AND s.bucket <= $2::timestamptz
  AND ($4::text IS NULL OR s.hostname = $4)
  AND ($5::text IS NULL OR s.server_id = $5)
GROUP BY 1, 2
ORDER BY 1, 2
