-- GET /api/v1/status/top groups: the (consumer group, queue) pairs of the tenant with the most unsettled
-- messages in the stats snapshot (docs/semantics.md, "Lag"), queue mode included, at most $2 of them.
-- $1 tenant, $2 limit.
SELECT s.consumer_group, q.name AS queue_name, s.partitions, s.lag_messages::bigint AS lag_messages,
       s.lag_seconds::float8 AS lag_seconds
FROM queen.stats_snapshot s
JOIN queen.queues q ON q.id = s.queue_id
WHERE s.level = 'consumer' AND s.tenant = $1 AND s.lag_messages > 0
ORDER BY s.lag_messages DESC, s.lag_seconds DESC, q.name, s.consumer_group
LIMIT $2
