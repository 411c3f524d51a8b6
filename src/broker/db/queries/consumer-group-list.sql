-- GET /api/v1/consumer-groups: one row per (group, queue) of the tenant, queue mode included, with its
-- members (partitions it has a cursor on), lag totals and subscription record (docs/semantics.md, "Lag").
-- $1 tenant.
SELECT l.consumer_group, l.queue_name,
       count(*) FILTER (WHERE l.has_cursor)::integer AS members,
       count(*) FILTER (WHERE l.offset_lag > 0)::integer AS partitions_with_lag,
       sum(l.offset_lag)::bigint AS total_lag,
       max(l.time_lag_seconds)::bigint AS max_time_lag,
       bool_or(l.last_consumed_at IS NOT NULL) AS ever_consumed,
       s.mode AS subscription_mode, s.start_at AS subscription_start, s.created_at AS subscription_created_at
FROM queen.consumer_lag($1, NULL) l
LEFT JOIN queen.subscriptions s ON s.queue_id = l.queue_id AND s.consumer_group = l.consumer_group
GROUP BY l.consumer_group, l.queue_name, l.queue_id, s.mode, s.start_at, s.created_at
ORDER BY l.consumer_group, l.queue_name
