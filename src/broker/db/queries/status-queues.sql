-- GET /api/v1/status queues: the tenant's queues (first 1000 by name) with their partition count and the
-- messages their consumer groups have consumed.
-- $1 tenant, $2 queue or NULL, $3 namespace or NULL, $4 task or NULL.
SELECT q.id, q.name, q.namespace, q.task,
       (SELECT count(*) FROM queen.partitions p WHERE p.queue_id = q.id)::integer AS partitions,
       (SELECT coalesce(sum(c.total_consumed), 0) FROM queen.consumers c WHERE c.queue_id = q.id)::bigint
         AS total_consumed
FROM queen.queues q
WHERE q.tenant = $1
  AND ($2::text IS NULL OR q.name = $2)
  AND ($3::text IS NULL OR q.namespace = $3)
  AND ($4::text IS NULL OR q.task = $4)
ORDER BY q.name
LIMIT 1000
