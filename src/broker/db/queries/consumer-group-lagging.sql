-- GET /api/v1/consumer-groups/lagging: the (group, partition) pairs of the tenant whose oldest unsettled
-- message is older than the threshold, most lagging first (docs/semantics.md, "Lag").
-- $1 tenant, $2 threshold in seconds (integer >= 0).
SELECT l.consumer_group, l.queue_name, l.partition_name, l.partition_id, l.offset_lag, l.time_lag_seconds,
       round(l.time_lag_seconds / 3600.0, 2)::float8 AS lag_hours, l.oldest_unsettled_at, l.last_consumed_at
FROM queen.consumer_lag($1, NULL) l
WHERE l.oldest_unsettled_at < now() - make_interval(secs => $2::integer)
ORDER BY l.oldest_unsettled_at, l.consumer_group, l.queue_name, l.partition_name
