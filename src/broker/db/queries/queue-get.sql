-- A queue's id and options by tenant and name.
-- $1 tenant, $2 queue name.
SELECT id, name, namespace, task, lease_time_seconds, retry_limit, retry_delay_ms, priority, delayed_processing_seconds,
       window_buffer_seconds, max_size, max_partitions, dedup_window_seconds, dead_letter_queue, retention_enabled,
       retention_seconds, completed_retention_seconds, max_wait_time_seconds, encryption_enabled, created_at
FROM queen.queues WHERE tenant = $1 AND name = $2
