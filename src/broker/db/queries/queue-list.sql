-- GET /api/v1/resources/queues: the tenant's queues, newest first, with partition and message counts.
-- $1 tenant, $2 name substring (case-insensitive) or NULL, $3 namespace or NULL, $4 task or NULL,
-- $5 limit, $6 offset.
SELECT q.id, q.name, q.namespace, q.task, q.created_at,
       (SELECT count(*) FROM queen.partitions p WHERE p.queue_id = q.id)::integer AS partitions,
       coalesce(sum(c.total), 0)::bigint AS total, coalesce(sum(c.pending), 0)::bigint AS pending,
       coalesce(sum(c.processing), 0)::bigint AS processing
FROM queen.queues q
LEFT JOIN queen.partitions p ON p.queue_id = q.id
LEFT JOIN LATERAL queen.partition_counters(p.id) c ON true
WHERE q.tenant = $1
  AND ($2::text IS NULL OR strpos(lower(q.name), lower($2)) > 0)
  AND ($3::text IS NULL OR q.namespace = $3)
  AND ($4::text IS NULL OR q.task = $4)
GROUP BY q.id
ORDER BY q.created_at DESC, q.name
LIMIT $5 OFFSET $6
