-- GET /api/v1/messages/:partitionId/:transactionId: one message (the newest with that transaction id) with its
-- payload as stored, its queue's delivery options, and its state for every group. The top-level status,
-- error and retry count are those of the reference group of docs/semantics.md, "Status counters": queue mode when it
-- has a cursor on the partition, else the slowest named group, else queue mode (every message pending). consumer_groups
-- lists the named groups that know the queue (cursor on the partition or subscription). $1 tenant, $2 partition id, $3
-- transaction id.
WITH target AS (
  SELECT m.*, q.id AS queue_id, q.name AS queue_name, q.namespace, q.task, q.lease_time_seconds, q.retry_limit,
         q.retry_delay_ms, q.priority, p.name AS partition_name
  FROM queen.messages m
  JOIN queen.partitions p ON p.id = m.partition_id
  JOIN queen.queues q ON q.id = p.queue_id
  WHERE m.partition_id = $2 AND m.transaction_id = $3 AND q.tenant = $1
  ORDER BY m.position DESC
  LIMIT 1
), named_groups AS (
  SELECT g.consumer_group,
         queen.message_group_status(t.partition_id, t.position, t.created_at, g.consumer_group) AS status,
         k.lease_expires_at
  FROM target t
  CROSS JOIN LATERAL (
    SELECT k0.consumer_group FROM queen.consumers k0
    WHERE k0.partition_id = t.partition_id AND k0.consumer_group <> '__QUEUE_MODE__'
    UNION
    SELECT u.consumer_group FROM queen.subscriptions u
    WHERE u.queue_id = t.queue_id AND u.consumer_group <> '__QUEUE_MODE__') g
  LEFT JOIN queen.consumers k ON k.partition_id = t.partition_id AND k.consumer_group = g.consumer_group
), reference AS (
  SELECT coalesce((SELECT k.consumer_group FROM queen.consumers k, target t
                   WHERE k.partition_id = t.partition_id
                   ORDER BY (k.consumer_group = '__QUEUE_MODE__') DESC, k.cursor_position, k.consumer_group
                   LIMIT 1), '__QUEUE_MODE__') AS consumer_group
), judged AS (
  SELECT t.*, r.consumer_group AS reference_group,
         queen.message_group_status(t.partition_id, t.position, t.created_at, r.consumer_group) AS status
  FROM target t CROSS JOIN reference r
)
SELECT j.id, j.transaction_id, j.partition_id, j.queue_name, j.partition_name, j.namespace, j.task, j.status,
       j.payload, j.is_encrypted, j.trace_id, j.producer_sub, j.created_at,
       coalesce(d.error, s.last_error) AS error_message,
       coalesce(d.failures, s.failures, 0) AS retry_count,
       CASE WHEN j.status = 'processing' THEN k.lease_expires_at END AS lease_expires_at,
       j.lease_time_seconds, j.retry_limit, j.retry_delay_ms, j.priority,
       EXISTS (SELECT 1 FROM queen.consumers k2
               WHERE k2.partition_id = j.partition_id AND k2.consumer_group = '__QUEUE_MODE__') AS has_queue_mode,
       coalesce((SELECT jsonb_agg(jsonb_build_object(
                   'name', n.consumer_group,
                   'consumed', n.status IN ('completed', 'dead_letter'),
                   'leaseExpiresAt', CASE WHEN n.status = 'processing'
                     THEN to_char(n.lease_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END)
                 ORDER BY n.consumer_group) FROM named_groups n), '[]'::jsonb) AS consumer_groups
FROM judged j
LEFT JOIN queen.consumers k ON k.partition_id = j.partition_id AND k.consumer_group = j.reference_group
LEFT JOIN queen.dead_letters d
  ON d.partition_id = j.partition_id AND d.position = j.position AND d.consumer_group = j.reference_group
LEFT JOIN queen.message_states s
  ON s.partition_id = j.partition_id AND s.consumer_group = j.reference_group AND s.position = j.position
