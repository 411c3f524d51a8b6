-- GET /api/v1/status and /status/analytics: the tenant's per-minute queue metrics summed over replicas and
-- queues per bucket of $4 minutes; every bucket from the one holding $2 to $3 is present (zeros when idle).
-- Buckets are aligned on the Unix epoch, so they do not depend on the session's TimeZone.
-- $1 tenant, $2 from, $3 to, $4 bucket minutes, $5 queue or NULL, $6 namespace or NULL, $7 task or NULL.
WITH width AS (
  SELECT make_interval(mins => $4::integer) AS w, timestamptz '1970-01-01 00:00:00+00' AS origin
), data AS (
  SELECT date_bin(width.w, m.bucket, width.origin) AS bucket,
         sum(m.push_count)::bigint AS push, sum(m.pop_count)::bigint AS pop, sum(m.ack_count)::bigint AS ack,
         sum(m.failed_count)::bigint AS failed, sum(m.dlq_count)::bigint AS dlq,
         sum(m.pop_lag_avg_ms * m.pop_count) AS lag_sum, max(m.pop_lag_max_ms)::bigint AS lag_max
  FROM width, queen.metrics_queue_minute m
  LEFT JOIN queen.queues q ON q.tenant = m.tenant AND q.name = m.queue_name
  WHERE m.tenant = $1 AND m.bucket >= date_bin(width.w, $2::timestamptz, width.origin) AND m.bucket <= $3::timestamptz
    AND ($5::text IS NULL OR m.queue_name = $5)
    AND ($6::text IS NULL OR q.namespace = $6)
    AND ($7::text IS NULL OR q.task = $7)
  GROUP BY 1
)
SELECT b.bucket, coalesce(d.push, 0)::bigint AS push, coalesce(d.pop, 0)::bigint AS pop,
       coalesce(d.ack, 0)::bigint AS ack, coalesce(d.failed, 0)::bigint AS failed, coalesce(d.dlq, 0)::bigint AS dlq,
       CASE WHEN coalesce(d.pop, 0) = 0 THEN 0 ELSE d.lag_sum / d.pop END::float8 AS avg_lag_ms,
       coalesce(d.lag_max, 0)::bigint AS max_lag_ms
FROM width
CROSS JOIN LATERAL generate_series(date_bin(width.w, $2::timestamptz, width.origin), $3::timestamptz, width.w) AS b(bucket)
LEFT JOIN data d ON d.bucket = b.bucket
ORDER BY b.bucket
