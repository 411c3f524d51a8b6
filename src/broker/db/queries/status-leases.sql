-- GET /api/v1/status leases: live leases of the tenant's queues, the partitions they hold, the messages
-- they cover and how many of those are already settled.
-- $1 tenant, $2 queue or NULL, $3 namespace or NULL, $4 task or NULL.
SELECT count(DISTINCT c.lease_id)::integer AS active,
       count(DISTINCT c.partition_id)::integer AS partitions_with_leases,
       coalesce(sum(c.lease_to - c.cursor_position), 0)::bigint AS total_batch_size,
       coalesce(sum((SELECT count(*) FROM queen.message_states s
                     WHERE s.partition_id = c.partition_id AND s.consumer_group = c.consumer_group
                       AND s.position > c.cursor_position AND s.position <= c.lease_to AND s.settled)), 0)::bigint
         AS total_acked
FROM queen.consumers c
JOIN queen.queues q ON q.id = c.queue_id
WHERE c.lease_id IS NOT NULL AND c.lease_expires_at > now() AND q.tenant = $1
  AND ($2::text IS NULL OR q.name = $2)
  AND ($3::text IS NULL OR q.namespace = $3)
  AND ($4::text IS NULL OR q.task = $4)
