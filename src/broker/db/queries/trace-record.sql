-- POST /api/v1/traces: records a client trace event on an existing message, with its names.
-- $1 partition id, $2 transaction id, $3 group, $4 event type, $5 data (jsonb), $6 worker id, $7 names (text[]),
-- $8 tenant (a message under another tenant's partition is not found).
WITH message AS (
  SELECT m.id FROM queen.messages m
  JOIN queen.partitions p ON p.id = m.partition_id
  JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = $8
  WHERE m.partition_id = $1 AND m.transaction_id = $2
  ORDER BY m.position DESC LIMIT 1
), trace AS (
  INSERT INTO queen.traces (partition_id, transaction_id, message_id, consumer_group, event_type, data, worker_id)
  SELECT $1, $2, message.id, $3, $4, $5::jsonb, $6 FROM message
  RETURNING id
), named AS (
  INSERT INTO queen.trace_names (trace_id, trace_name)
  SELECT trace.id, n FROM trace, unnest($7::text[]) AS n
  ON CONFLICT DO NOTHING
)
SELECT id FROM trace
