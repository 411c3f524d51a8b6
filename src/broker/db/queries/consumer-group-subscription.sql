-- POST /api/v1/consumer-groups/:group/subscription: rewrites the group's recorded subscription start on
-- all its queues; partitions the group already has a cursor on keep it.
-- $1 tenant, $2 group, $3 new start (timestamptz).
UPDATE queen.subscriptions s SET start_at = $3, mode = 'timestamp'
FROM queen.queues q
WHERE q.id = s.queue_id AND q.tenant = $1 AND s.consumer_group = $2
