-- GET /api/v1/dlq: dead-lettered messages of the tenant, newest failure first, with the total.
-- $1 tenant, $2 queue or NULL, $3 group or NULL, $4 partition name or NULL, $5 failed from or NULL,
-- $6 failed to or NULL, $7 limit, $8 offset.
WITH filtered AS (
  SELECT d.*, q.name AS queue_name, p.name AS partition_name
  FROM queen.dead_letters d
  JOIN queen.queues q ON q.id = d.queue_id
  JOIN queen.partitions p ON p.id = d.partition_id
  WHERE q.tenant = $1
    AND ($2::text IS NULL OR q.name = $2)
    AND ($3::text IS NULL OR d.consumer_group = $3)
    AND ($4::text IS NULL OR p.name = $4)
    AND ($5::timestamptz IS NULL OR d.failed_at >= $5)
    AND ($6::timestamptz IS NULL OR d.failed_at <= $6)
)
SELECT f.message_id, f.transaction_id, f.partition_id, f.queue_name, f.partition_name, f.consumer_group, f.error,
       f.failures, CASE WHEN f.has_payload_copy THEN f.payload ELSE m.payload END AS payload,
       CASE WHEN f.has_payload_copy THEN f.is_encrypted ELSE coalesce(m.is_encrypted, false) END AS is_encrypted,
       f.producer_sub, f.message_created_at, f.failed_at, (SELECT count(*) FROM filtered)::integer AS total
FROM filtered f
LEFT JOIN queen.messages m ON m.partition_id = f.partition_id AND m.position = f.position
ORDER BY f.failed_at DESC, f.message_id
LIMIT $7 OFFSET $8
