-- DELETE /api/v1/queues/:queue/clear[?partition=]: deletes every message of the queue, or only those of the
-- named partition, and keeps everything else (queen.clear_queue, schema 007). deleted_messages is NULL when
-- the queue does not exist, and 0 when it has no partition of that name.
-- $1 tenant, $2 queue name, $3 partition name or NULL (the whole queue).
SELECT queen.clear_queue($1, $2, $3::text) AS deleted_messages
