-- GET /api/v1/analytics/queue-ops: per bucket of $4 minutes (epoch-aligned) and queue, the messages pushed,
-- delivered, acknowledged, failed and dead-lettered, summed over replicas.
-- $1 tenant, $2 from, $3 to, $4 bucket minutes, $5 queue or NULL.
WITH width AS (
  SELECT make_interval(mins => $4::integer) AS w, timestamptz '1970-01-01 00:00:00+00' AS origin
)
SELECT date_bin(width.w, m.bucket, width.origin) AS bucket, m.queue_name, sum(m.push_count)::bigint AS push,
       sum(m.pop_count)::bigint AS pop, sum(m.ack_count)::bigint AS ack, sum(m.failed_count)::bigint AS failed,
       sum(m.dlq_count)::bigint AS dlq
FROM width, queen.metrics_queue_minute m
WHERE m.tenant = $1
  AND m.bucket >= date_bin(width.w, $2::timestamptz, width.origin) AND m.bucket <= $3::timestamptz
  AND ($5::text IS NULL OR m.queue_name = $5)
GROUP BY 1, 2
ORDER BY 1, 2
