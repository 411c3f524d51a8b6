-- Queues a namespace/task pop visits (GET /api/v1/pop, docs/semantics.md, "Namespace and task pops"): matching tags,
-- highest priority first, then the queue the group was served from least recently (never served first). $1 tenant, $2
-- namespace or NULL (any), $3 task or NULL (any), $4 consumer group.
SELECT q.id, q.name
FROM queen.queues q
LEFT JOIN LATERAL (
  SELECT max(c.last_served_at) AS served FROM queen.consumers c WHERE c.queue_id = q.id AND c.consumer_group = $4
) s ON true
WHERE q.tenant = $1 AND ($2::text IS NULL OR q.namespace = $2) AND ($3::text IS NULL OR q.task = $3)
ORDER BY q.priority DESC, s.served ASC NULLS FIRST, q.name
