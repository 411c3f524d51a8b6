-- GET /api/v1/resources/queues/:queue/depth: per partition, the messages a consumer group has not settled, and how
-- many of them are in flight under its live lease (docs/http-api.md, "Queue depth"). Arithmetic on positions and
-- the sparse settled states, as the lag of docs/semantics.md, "Lag" (queen.partition_group_lag, 008): no scan
-- of the backlog, except where a subscription start not yet passed makes the count look at creation times.
-- With a group: its cursor on the partition; without one there, its subscription start (none: the whole
-- partition, as its first pop would deliver). Without a group ($2 NULL): the cursor the status counters use
-- (docs/semantics.md, "Status counters"; queen.partition_counters, 006), queue mode's where it has one on the
-- partition, else the slowest group's, else none (every message).
-- $1 queue id, $2 consumer group or NULL.
SELECT p.name AS partition,
       l.unsettled AS pending,
       least(l.unsettled, coalesce(f.in_flight, 0)) AS processing
FROM queen.partitions p
LEFT JOIN LATERAL (
  SELECT c0.consumer_group, c0.cursor_position, c0.start_at, c0.lease_id, c0.lease_expires_at, c0.lease_to
  FROM queen.consumers c0
  WHERE c0.partition_id = p.id AND ($2::text IS NULL OR c0.consumer_group = $2::text)
  ORDER BY (c0.consumer_group = '__QUEUE_MODE__') DESC, c0.cursor_position ASC
  LIMIT 1
) c ON true
LEFT JOIN queen.subscriptions s ON s.queue_id = p.queue_id AND s.consumer_group = $2::text
CROSS JOIN LATERAL queen.partition_group_lag(p.id, coalesce(c.consumer_group, $2::text, ''),
                                             coalesce(c.cursor_position, 0),
                                             CASE WHEN c.consumer_group IS NOT NULL THEN c.start_at
                                                  ELSE s.start_at END) l
-- In flight: delivered under the live lease and not yet settled or answered under it (as partition_counters).
LEFT JOIN LATERAL (
  SELECT count(*) AS in_flight
  FROM queen.messages m
  LEFT JOIN queen.message_states st
    ON st.partition_id = m.partition_id AND st.consumer_group = c.consumer_group AND st.position = m.position
  WHERE c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp()
    AND m.partition_id = p.id AND m.position > c.cursor_position AND m.position <= c.lease_to
    AND NOT coalesce(st.settled, false) AND st.outcome_lease_id IS DISTINCT FROM c.lease_id
) f ON true
WHERE p.queue_id = $1
ORDER BY p.name
