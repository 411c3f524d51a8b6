-- GET /api/v1/status/queues: the tenant's queues, newest first, with live partition counts and message
-- counters from the stats snapshot (zeros until the queue's first refresh).
-- $1 tenant, $2 namespace or NULL, $3 task or NULL, $4 limit, $5 offset.
SELECT q.id, q.name, q.namespace, q.task, q.created_at,
       (SELECT count(*) FROM queen.partitions p WHERE p.queue_id = q.id)::integer AS partitions,
       coalesce(s.total, 0)::bigint AS total, coalesce(s.pending, 0)::bigint AS pending,
       coalesce(s.processing, 0)::bigint AS processing
FROM queen.queues q
LEFT JOIN queen.stats_snapshot s ON s.level = 'queue' AND s.tenant = q.tenant AND s.scope = q.id::text
WHERE q.tenant = $1
  AND ($2::text IS NULL OR q.namespace = $2)
  AND ($3::text IS NULL OR q.task = $3)
ORDER BY q.created_at DESC, q.name
LIMIT $4 OFFSET $5
