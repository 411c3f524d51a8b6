-- Per (queue, consumer group) lag of the snapshot, every tenant, for the Prometheus lag gauges.
-- No parameters.
SELECT s.tenant, q.name AS queue_name, s.consumer_group, s.lag_messages, s.lag_seconds
FROM queen.stats_snapshot s
JOIN queen.queues q ON q.id = s.queue_id
WHERE s.level = 'consumer'
ORDER BY s.tenant, q.name, s.consumer_group
