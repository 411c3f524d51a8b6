-- GET /api/v1/status workers: the replicas that wrote per-minute metrics in the range, with their latest
-- identity and write time and the messages they pushed, delivered and acknowledged for the tenant.
-- $1 tenant, $2 from, $3 to.
WITH servers AS (
  SELECT DISTINCT ON (s.server_id) s.server_id, s.hostname, s.pid, s.written_at
  FROM queen.metrics_server_minute s
  WHERE s.bucket >= date_trunc('minute', $2::timestamptz) AND s.bucket <= $3::timestamptz
  ORDER BY s.server_id, s.bucket DESC
), ops AS (
  SELECT m.server_id, sum(m.push_count) AS push, sum(m.pop_count) AS pop, sum(m.ack_count) AS ack
  FROM queen.metrics_queue_minute m
  WHERE m.tenant = $1 AND m.bucket >= date_trunc('minute', $2::timestamptz) AND m.bucket <= $3::timestamptz
  GROUP BY m.server_id
)
SELECT s.server_id, s.hostname, s.pid, s.written_at AS last_seen, coalesce(o.push, 0)::bigint AS push,
       coalesce(o.pop, 0)::bigint AS pop, coalesce(o.ack, 0)::bigint AS ack
FROM servers s
LEFT JOIN ops o ON o.server_id = s.server_id
ORDER BY s.server_id
