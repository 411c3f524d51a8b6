-- GET /api/v1/status/top queues: the tenant's queues with the most pending messages in the stats snapshot,
-- at most $2 of them, with their partition counts. The answer stays small whatever the number of queues,
-- so the dashboard's overview can poll it every 2 s (docs/dashboard.md, "What it shows").
-- $1 tenant, $2 limit.
SELECT q.name, q.namespace, q.task, s.partitions, s.total::bigint AS total, s.pending::bigint AS pending,
       s.processing::bigint AS processing
FROM queen.stats_snapshot s
JOIN queen.queues q ON q.id = s.queue_id
WHERE s.level = 'queue' AND s.tenant = $1 AND s.pending > 0
ORDER BY s.pending DESC, q.name
LIMIT $2
