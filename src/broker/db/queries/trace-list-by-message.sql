-- GET /api/v1/traces/:partitionId/:transactionId: the trace events of one message, oldest first, each with
-- its names.
-- $1 tenant, $2 partition id, $3 transaction id.
SELECT t.id, t.event_type, t.data, t.consumer_group, t.worker_id, t.created_at,
       coalesce((SELECT array_agg(n.trace_name ORDER BY n.trace_name) FROM queen.trace_names n WHERE n.trace_id = t.id),
                '{}') AS trace_names
FROM queen.traces t
JOIN queen.partitions p ON p.id = t.partition_id
JOIN queen.queues q ON q.id = p.queue_id
WHERE t.partition_id = $2 AND t.transaction_id = $3 AND q.tenant = $1
ORDER BY t.created_at, t.id
