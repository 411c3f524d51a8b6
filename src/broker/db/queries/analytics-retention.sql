-- GET /api/v1/analytics/retention: per bucket of $4 minutes (epoch-aligned) and kind, what retention,
-- eviction and partition cleanup deleted for the tenant's queues.
-- $1 tenant, $2 from, $3 to, $4 bucket minutes, $5 queue or NULL.
WITH width AS (
  SELECT make_interval(mins => $4::integer) AS w, timestamptz '1970-01-01 00:00:00+00' AS origin
)
SELECT date_bin(width.w, r.bucket, width.origin) AS bucket, r.kind, sum(r.deleted)::bigint AS deleted
FROM width, queen.retention_history r
WHERE r.tenant = $1
  AND r.bucket >= date_bin(width.w, $2::timestamptz, width.origin) AND r.bucket <= $3::timestamptz
  AND ($5::text IS NULL OR r.queue_name = $5)
GROUP BY 1, 2
ORDER BY 1, 2
