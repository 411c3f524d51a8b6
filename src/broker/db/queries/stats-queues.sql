-- Per-queue counters of the snapshot, every tenant, for the Prometheus queue gauges. No parameters.
SELECT s.tenant, q.name AS queue_name, s.pending, s.processing, s.dead_letter
FROM queen.stats_snapshot s
JOIN queen.queues q ON q.id = s.queue_id
WHERE s.level = 'queue'
ORDER BY s.tenant, q.name
