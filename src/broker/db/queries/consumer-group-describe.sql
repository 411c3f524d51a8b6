-- GET /api/v1/consumer-groups/:group: the group's partitions on every queue of the tenant, with cursor
-- counters, lag and lease state (docs/semantics.md, "Lag"). No row: the group is unknown.
-- $1 tenant, $2 group.
SELECT l.queue_name, l.partition_name, l.last_consumed_at, l.total_consumed, l.offset_lag, l.time_lag_seconds,
       l.lease_active
FROM queen.consumer_lag($1, $2) l
ORDER BY l.queue_name, l.partition_name
