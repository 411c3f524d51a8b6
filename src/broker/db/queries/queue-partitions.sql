-- GET /api/v1/resources/queues/:queue: one queue's partitions with their status counters.
-- $1 queue id.
SELECT p.id, p.name, p.created_at, c.total, c.pending, c.processing, c.completed, c.failed, c.dead_letter,
       (SELECT min(m.created_at) FROM queen.messages m WHERE m.partition_id = p.id) AS oldest_message,
       p.newest_created_at AS newest_message
FROM queen.partitions p
CROSS JOIN LATERAL queen.partition_counters(p.id) c
WHERE p.queue_id = $1
ORDER BY p.name
