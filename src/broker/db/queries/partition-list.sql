-- GET /api/v1/resources/partitions: the tenant's partitions, of one queue or of every queue, ordered by queue
-- name then partition name, with their live status counters (queen.partition_counters, schema 006, as the
-- queue listings read them). The page is cut before the counters are computed, so a page costs its own rows
-- only, however many partitions the tenant has.
-- $1 tenant, $2 queue name or NULL (every queue), $3 limit, $4 offset.
WITH page AS (
  SELECT p.id, p.name, q.name AS queue, q.namespace, q.task, p.created_at, p.last_activity_at
  FROM queen.queues q
  JOIN queen.partitions p ON p.queue_id = q.id
  WHERE q.tenant = $1 AND ($2::text IS NULL OR q.name = $2)
  ORDER BY q.name, p.name
  LIMIT $3 OFFSET $4
)
SELECT page.id, page.name, page.queue, page.namespace, page.task, page.created_at, page.last_activity_at,
       c.total, c.pending, c.processing
FROM page
CROSS JOIN LATERAL queen.partition_counters(page.id) c
ORDER BY page.queue, page.name
