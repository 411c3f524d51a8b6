-- GET /api/v1/status deadLetterQueue.topErrors: the five most frequent DLQ error texts of the tenant's
-- queues. $1 tenant, $2 queue or NULL, $3 namespace or NULL, $4 task or NULL.
SELECT coalesce(d.error, 'unknown') AS error, count(*)::integer AS count
FROM queen.dead_letters d
JOIN queen.queues q ON q.id = d.queue_id
WHERE q.tenant = $1
  AND ($2::text IS NULL OR q.name = $2)
  AND ($3::text IS NULL OR q.namespace = $3)
  AND ($4::text IS NULL OR q.task = $4)
GROUP BY 1
ORDER BY 2 DESC, 1
LIMIT 5
