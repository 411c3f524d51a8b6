-- GET /api/v1/status/queues/:queue: a queue's partitions with their snapshot counters (zeros until the
-- partition's first refresh) and the cursor counters of queue mode when it has a cursor there, else of the
-- slowest group (docs/semantics.md, "Status counters"). $1 queue id.
SELECT p.id, p.name, p.created_at, p.last_activity_at,
       coalesce(s.total, 0)::bigint AS total, coalesce(s.pending, 0)::bigint AS pending,
       coalesce(s.processing, 0)::bigint AS processing, coalesce(s.completed, 0)::bigint AS completed,
       coalesce(s.failed, 0)::bigint AS failed, coalesce(s.dead_letter, 0)::bigint AS dead_letter,
       s.oldest_message_at, s.newest_message_at,
       coalesce(g.total_consumed, 0)::bigint AS total_consumed,
       coalesce(g.batches_consumed, 0)::bigint AS batches_consumed
FROM queen.partitions p
LEFT JOIN queen.stats_snapshot s ON s.queue_id = p.queue_id AND s.level = 'partition' AND s.partition_id = p.id
LEFT JOIN LATERAL (
  SELECT c.total_consumed, c.batches_consumed
  FROM queen.consumers c
  WHERE c.partition_id = p.id
  ORDER BY (c.consumer_group = '__QUEUE_MODE__') DESC, c.cursor_position ASC
  LIMIT 1
) g ON true
WHERE p.queue_id = $1
ORDER BY p.name
