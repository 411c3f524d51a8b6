-- GET /api/v1/traces/names: the tenant's trace names, most recently seen first, with how many events and
-- distinct messages carry each, and the total number of names.
-- $1 tenant, $2 limit, $3 offset.
WITH names AS (
  SELECT n.trace_name, count(*)::integer AS trace_count,
         count(DISTINCT (t.partition_id, t.transaction_id))::integer AS message_count, max(t.created_at) AS last_seen
  FROM queen.trace_names n
  JOIN queen.traces t ON t.id = n.trace_id
  JOIN queen.partitions p ON p.id = t.partition_id
  JOIN queen.queues q ON q.id = p.queue_id
  WHERE q.tenant = $1
  GROUP BY n.trace_name
)
SELECT nm.trace_name, nm.trace_count, nm.message_count, nm.last_seen, (SELECT count(*) FROM names)::integer AS total
FROM names nm
ORDER BY nm.last_seen DESC, nm.trace_name
LIMIT $2 OFFSET $3
