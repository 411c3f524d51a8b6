-- GET /api/v1/resources/namespaces: the tenant's queues grouped by namespace (queues without one are
-- left out), with partition counts and message counters (docs/semantics.md, "Status counters").
-- $1 tenant.
SELECT q.namespace, count(DISTINCT q.id)::integer AS queues, count(p.id)::integer AS partitions,
       coalesce(sum(c.total), 0)::bigint AS total, coalesce(sum(c.pending), 0)::bigint AS pending
FROM queen.queues q
LEFT JOIN queen.partitions p ON p.queue_id = q.id
LEFT JOIN LATERAL queen.partition_counters(p.id) c ON p.id IS NOT NULL
WHERE q.tenant = $1 AND q.namespace <> ''
GROUP BY q.namespace
ORDER BY q.namespace
