-- POST /api/v1/consumer-groups/:group/queues/:queue/seek: moves the group's cursor on every partition of
-- the queue to its head or to a timestamp (docs/semantics.md, "Seek"). queue_id NULL: no such queue.
-- $1 tenant, $2 queue name, $3 group, $4 to end (boolean), $5 timestamp (NULL with $4 true).
SELECT queue_id, partitions_updated, cursor_moved_to
FROM queen.seek_consumer_group($1, $2, $3, NULL, $4, $5)
