-- DELETE /api/v1/queues/:queue/clear: deletes every message of the queue and keeps everything else
-- (queen.clear_queue, schema 007). deleted_messages is NULL when the queue does not exist.
-- $1 tenant, $2 queue name.
SELECT queen.clear_queue($1, $2) AS deleted_messages
