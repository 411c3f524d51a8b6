-- GET /api/v1/traces/by-name/:traceName: the trace events carrying one name, newest first, with their
-- message's queue, partition and payload (as stored, with its is_encrypted flag; NULL once the message is
-- gone), and the total.
-- $1 tenant, $2 trace name, $3 limit, $4 offset.
WITH named AS (
  SELECT t.*, q.name AS queue_name, p.name AS partition_name
  FROM queen.trace_names n
  JOIN queen.traces t ON t.id = n.trace_id
  JOIN queen.partitions p ON p.id = t.partition_id
  JOIN queen.queues q ON q.id = p.queue_id
  WHERE n.trace_name = $2 AND q.tenant = $1
)
SELECT nd.id, nd.transaction_id, nd.partition_id, nd.event_type, nd.data, nd.consumer_group, nd.worker_id,
       nd.created_at, nd.queue_name, nd.partition_name, m.payload AS message_payload,
       m.is_encrypted AS message_is_encrypted,
       coalesce((SELECT array_agg(n.trace_name ORDER BY n.trace_name) FROM queen.trace_names n WHERE n.trace_id = nd.id),
                '{}') AS trace_names,
       (SELECT count(*) FROM named)::integer AS total
FROM named nd
LEFT JOIN queen.messages m
  ON m.partition_id = nd.partition_id AND m.transaction_id = nd.transaction_id AND m.id = nd.message_id
ORDER BY nd.created_at DESC, nd.id
LIMIT $3 OFFSET $4
