-- GET /api/v1/analytics/queue-parked-replicas: per replica and bucket of $4 minutes (epoch-aligned), the
-- most long-poll pops parked at once: all of the replica's pops, or with $5 those on one queue of tenant $1.
-- $1 tenant, $2 from, $3 to, $4 bucket minutes, $5 queue or NULL.
WITH width AS (
  SELECT make_interval(mins => $4::integer) AS w, timestamptz '1970-01-01 00:00:00+00' AS origin
)
SELECT date_bin(width.w, s.bucket, width.origin) AS bucket, s.server_id, max(s.parked_pops)::integer AS parked_pops
FROM width, queen.metrics_server_minute s
WHERE $5::text IS NULL
  AND s.bucket >= date_bin(width.w, $2::timestamptz, width.origin) AND s.bucket <= $3::timestamptz
GROUP BY 1, 2
UNION ALL
SELECT date_bin(width.w, m.bucket, width.origin), m.server_id, max(m.parked_pops)::integer
FROM width, queen.metrics_queue_minute m
WHERE $5::text IS NOT NULL AND m.tenant = $1 AND m.queue_name = $5
  AND m.bucket >= date_bin(width.w, $2::timestamptz, width.origin) AND m.bucket <= $3::timestamptz
GROUP BY 1, 2
ORDER BY 2, 1
