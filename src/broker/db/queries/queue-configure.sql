-- POST /api/v1/configure: creates or fully replaces a queue's options and tags, and makes sure its
-- Default partition exists. Enabling maxSize recounts the stored messages, since the counter is kept only
-- while a cap is set.
-- $1 tenant, $2 queue name, $3 namespace, $4 task, $5 options (jsonb with every option, wire names; cast once
-- in the first CTE).
WITH o AS (SELECT $5::jsonb AS v), upserted AS (
  INSERT INTO queen.queues AS q (tenant, name, namespace, task, lease_time_seconds, retry_limit, retry_delay_ms, priority,
                                 delayed_processing_seconds, window_buffer_seconds, max_size, max_partitions,
                                 dedup_window_seconds, dead_letter_queue, retention_enabled, retention_seconds,
                                 completed_retention_seconds, max_wait_time_seconds, encryption_enabled)
  SELECT $1, $2, $3, $4, (o.v->>'leaseTime')::integer, (o.v->>'retryLimit')::integer, (o.v->>'retryDelay')::integer,
         (o.v->>'priority')::integer, (o.v->>'delayedProcessing')::integer, (o.v->>'windowBuffer')::integer,
         (o.v->>'maxSize')::bigint, (o.v->>'maxPartitions')::integer, (o.v->>'dedupWindowSeconds')::integer,
         (o.v->>'deadLetterQueue')::boolean, (o.v->>'retentionEnabled')::boolean, (o.v->>'retentionSeconds')::bigint,
         (o.v->>'completedRetentionSeconds')::bigint, (o.v->>'maxWaitTimeSeconds')::bigint,
         (o.v->>'encryptionEnabled')::boolean
  FROM o
  ON CONFLICT (tenant, name) DO UPDATE SET
    namespace = EXCLUDED.namespace, task = EXCLUDED.task, lease_time_seconds = EXCLUDED.lease_time_seconds,
    retry_limit = EXCLUDED.retry_limit, retry_delay_ms = EXCLUDED.retry_delay_ms, priority = EXCLUDED.priority,
    delayed_processing_seconds = EXCLUDED.delayed_processing_seconds,
    window_buffer_seconds = EXCLUDED.window_buffer_seconds, max_size = EXCLUDED.max_size,
    max_partitions = EXCLUDED.max_partitions, dedup_window_seconds = EXCLUDED.dedup_window_seconds,
    dead_letter_queue = EXCLUDED.dead_letter_queue, retention_enabled = EXCLUDED.retention_enabled,
    retention_seconds = EXCLUDED.retention_seconds, completed_retention_seconds = EXCLUDED.completed_retention_seconds,
    max_wait_time_seconds = EXCLUDED.max_wait_time_seconds, encryption_enabled = EXCLUDED.encryption_enabled,
    stored_messages = CASE WHEN EXCLUDED.max_size > 0 AND q.max_size = 0
      THEN (SELECT count(*) FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id WHERE p.queue_id = q.id)
      ELSE q.stored_messages END,
    updated_at = now()
  RETURNING q.id
), created_partition AS (
  INSERT INTO queen.partitions (queue_id, name) SELECT u.id, 'Default' FROM upserted u
  ON CONFLICT (queue_id, name) DO NOTHING
  RETURNING id
)
SELECT u.id AS queue_id,
       coalesce((SELECT c.id FROM created_partition c),
                (SELECT p.id FROM queen.partitions p WHERE p.queue_id = u.id AND p.name = 'Default')) AS partition_id
FROM upserted u
