-- GET /api/v1/analytics/queue-parked-replicas: per replica and bucket of $4 minutes (epoch-aligned), the
-- most long-poll pops parked at once. With $6 (a single-tenant broker) and no queue, all of the replica's
-- pops; otherwise only those on tenant $1's queues (one queue with $5), summed over its queues per minute:
-- a tenant never sees another tenant's pops (issue 40).
-- $1 tenant, $2 from, $3 to, $4 bucket minutes, $5 queue or NULL, $6 whole replica (boolean).
WITH width AS (
  SELECT make_interval(mins => $4::integer) AS w, timestamptz '1970-01-01 00:00:00+00' AS origin
), tenant_minutes AS (
  SELECT m.bucket, m.server_id, sum(m.parked_pops)::integer AS parked_pops
  FROM width, queen.metrics_queue_minute m
  WHERE NOT ($5::text IS NULL AND $6::boolean) AND m.tenant = $1 AND ($5::text IS NULL OR m.queue_name = $5)
    AND m.bucket >= date_bin(width.w, $2::timestamptz, width.origin) AND m.bucket <= $3::timestamptz
  GROUP BY 1, 2
)
SELECT date_bin(width.w, s.bucket, width.origin) AS bucket, s.server_id, max(s.parked_pops)::integer AS parked_pops
FROM width, queen.metrics_server_minute s
WHERE $5::text IS NULL AND $6::boolean
  AND s.bucket >= date_bin(width.w, $2::timestamptz, width.origin) AND s.bucket <= $3::timestamptz
GROUP BY 1, 2
UNION ALL
SELECT date_bin(width.w, t.bucket, width.origin), t.server_id, max(t.parked_pops)::integer
FROM width, tenant_minutes t
GROUP BY 1, 2
ORDER BY 2, 1
