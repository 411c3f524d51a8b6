-- POST /api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek: moves the group's cursor
-- on one partition to its head (docs/semantics.md, "Seek"). partitions_updated 0: no such queue or partition.
-- $1 tenant, $2 queue name, $3 group, $4 partition name.
SELECT queue_id, partitions_updated, cursor_moved_to
FROM queen.seek_consumer_group($1, $2, $3, $4, true, NULL)
