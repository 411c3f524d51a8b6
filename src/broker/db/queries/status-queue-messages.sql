-- GET /api/v1/status/queues/:queue/messages: the queue's messages, newest first, each with its status for
-- queue mode when it has a cursor on the partition, else for the slowest known group (docs/semantics.md, "Status
-- counters"): pending, processing, completed, failed or dead_letter. $1 queue id, $2 limit, $3 offset.
SELECT m.id, m.transaction_id, m.partition_id, p.name AS partition_name, m.created_at,
       CASE
         WHEN g.consumer_group IS NULL THEN 'pending'
         WHEN EXISTS (SELECT 1 FROM queen.dead_letters d
                      WHERE d.partition_id = m.partition_id AND d.position = m.position
                        AND d.consumer_group = g.consumer_group) THEN 'dead_letter'
         WHEN m.position <= g.cursor_position OR coalesce(s.settled, false)
           OR (g.start_at IS NOT NULL AND m.created_at < g.start_at) THEN 'completed'
         WHEN g.lease_id IS NOT NULL AND g.lease_expires_at > now() AND m.position <= g.lease_to
           AND s.outcome_lease_id IS DISTINCT FROM g.lease_id THEN 'processing'
         WHEN coalesce(s.failures, 0) > 0 THEN 'failed'
         ELSE 'pending'
       END AS status
FROM queen.partitions p
JOIN queen.messages m ON m.partition_id = p.id
LEFT JOIN LATERAL (
  SELECT c.consumer_group, c.cursor_position, c.start_at, c.lease_id, c.lease_expires_at, c.lease_to
  FROM queen.consumers c
  WHERE c.partition_id = p.id
  ORDER BY (c.consumer_group = '__QUEUE_MODE__') DESC, c.cursor_position ASC
  LIMIT 1
) g ON true
LEFT JOIN queen.message_states s
  ON s.partition_id = m.partition_id AND s.consumer_group = g.consumer_group AND s.position = m.position
WHERE p.queue_id = $1
ORDER BY m.created_at DESC, m.position DESC
LIMIT $2 OFFSET $3
