-- GET /api/v1/status deadLetterQueue: DLQ entries of the tenant's queues and the partitions they come from.
-- $1 tenant, $2 queue or NULL, $3 namespace or NULL, $4 task or NULL.
SELECT count(*)::integer AS total_messages, count(DISTINCT d.partition_id)::integer AS affected_partitions
FROM queen.dead_letters d
JOIN queen.queues q ON q.id = d.queue_id
WHERE q.tenant = $1
  AND ($2::text IS NULL OR q.name = $2)
  AND ($3::text IS NULL OR q.namespace = $3)
  AND ($4::text IS NULL OR q.task = $4)
