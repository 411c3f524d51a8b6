-- DELETE /api/v1/consumer-groups/:group: removes the group's cursors, leases and per-message state on
-- every queue of the tenant (or one queue), and with $4 its subscription records.
-- $1 tenant, $2 group, $3 queue name or NULL (all queues), $4 delete metadata (boolean).
WITH target_queues AS (
  SELECT q.id FROM queen.queues q WHERE q.tenant = $1 AND ($3::text IS NULL OR q.name = $3)
), states AS (
  DELETE FROM queen.message_states s
  USING queen.partitions p
  WHERE p.id = s.partition_id AND p.queue_id IN (SELECT id FROM target_queues) AND s.consumer_group = $2
), consumers AS (
  DELETE FROM queen.consumers c
  WHERE c.queue_id IN (SELECT id FROM target_queues) AND c.consumer_group = $2
  RETURNING 1
), horizons AS (
  -- Without its consumer rows the group starts over: its next pop absorbs every partition again (015).
  DELETE FROM queen.ready_horizons h
  WHERE h.queue_id IN (SELECT id FROM target_queues) AND h.consumer_group = $2
), subscriptions AS (
  DELETE FROM queen.subscriptions s
  WHERE $4 AND s.queue_id IN (SELECT id FROM target_queues) AND s.consumer_group = $2
  RETURNING 1
)
SELECT (SELECT count(*) FROM consumers)::integer AS deleted_partitions,
       (SELECT count(*) FROM subscriptions)::integer AS deleted_subscriptions
