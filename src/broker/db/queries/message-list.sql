-- GET /api/v1/messages: the tenant's messages created in a time window, newest first, without payloads,
-- each with its status for one group, its queue-mode status and its fan-out progress; plus the consumption
-- mode of the queues in scope. Always one row at least: when no message matches, the message columns are
-- NULL and only the mode columns are set.
-- $1 tenant, $2 queue or NULL, $3 partition or NULL, $4 namespace or NULL, $5 task or NULL, $6 status or NULL
-- (pending | processing | completed | dead_letter), $7 group the status is computed for, $8 created from or
-- NULL (one hour before $9, or before now), $9 created to or NULL (no upper bound), $10 limit, $11 offset.
WITH scope AS (
  SELECT q.id AS queue_id, q.name AS queue_name, q.namespace, q.task, q.priority, p.id AS partition_id,
         p.name AS partition_name
  FROM queen.queues q
  JOIN queen.partitions p ON p.queue_id = q.id
  WHERE q.tenant = $1
    AND ($2::text IS NULL OR q.name = $2)
    AND ($3::text IS NULL OR p.name = $3)
    AND ($4::text IS NULL OR q.namespace = $4)
    AND ($5::text IS NULL OR q.task = $5)
), bounds AS (
  SELECT coalesce($8::timestamptz, coalesce($9::timestamptz, now()) - interval '1 hour') AS from_at,
         $9::timestamptz AS to_at
), candidates AS (
  SELECT s.*, m.id, m.position, m.transaction_id, m.trace_id, m.producer_sub, m.created_at,
         queen.message_group_status(m.partition_id, m.position, m.created_at, $7::text) AS status
  FROM scope s
  CROSS JOIN bounds b
  JOIN queen.messages m ON m.partition_id = s.partition_id
  WHERE m.created_at >= b.from_at AND (b.to_at IS NULL OR m.created_at <= b.to_at)
), page AS (
  SELECT c.* FROM candidates c
  WHERE $6::text IS NULL OR c.status = $6
  ORDER BY c.created_at DESC, c.partition_id, c.position DESC
  LIMIT $10 OFFSET $11
), mode AS (
  SELECT EXISTS (SELECT 1 FROM queen.consumers k
                 WHERE k.queue_id IN (SELECT s.queue_id FROM scope s) AND k.consumer_group = '__QUEUE_MODE__')
           AS has_queue_mode,
         (SELECT count(*) FROM (
            SELECT k.consumer_group FROM queen.consumers k
            WHERE k.queue_id IN (SELECT s.queue_id FROM scope s) AND k.consumer_group <> '__QUEUE_MODE__'
            UNION
            SELECT u.consumer_group FROM queen.subscriptions u
            WHERE u.queue_id IN (SELECT s.queue_id FROM scope s) AND u.consumer_group <> '__QUEUE_MODE__') g
         )::integer AS bus_groups
)
SELECT md.has_queue_mode, md.bus_groups, pg.id, pg.transaction_id, pg.partition_id, pg.queue_name, pg.partition_name,
       pg.namespace, pg.task, pg.status,
       CASE WHEN pg.id IS NOT NULL
         THEN queen.message_group_status(pg.partition_id, pg.position, pg.created_at, '__QUEUE_MODE__') END AS queue_status,
       bs.consumed_by, bs.total_groups, pg.trace_id, pg.producer_sub, pg.priority, pg.created_at,
       CASE WHEN pg.status = 'processing'
         THEN (SELECT k.lease_expires_at FROM queen.consumers k
               WHERE k.partition_id = pg.partition_id AND k.consumer_group = $7::text) END AS lease_expires_at
FROM mode md
LEFT JOIN page pg ON true
LEFT JOIN LATERAL queen.message_bus_status(pg.partition_id, pg.position, pg.created_at) bs ON pg.id IS NOT NULL
ORDER BY pg.created_at DESC, pg.partition_id, pg.position DESC
