-- Re-registers a locked stream query with the queues and config hash of the latest registration.
-- $1 query id, $2 source queue, $3 sink queue (or null), $4 config hash.
UPDATE queen.stream_queries
SET source_queue = $2, sink_queue = $3, config_hash = $4, updated_at = now()
WHERE id = $1
