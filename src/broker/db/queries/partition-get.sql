-- A partition's id by queue id and name.
-- $1 queue id, $2 partition name.
SELECT id FROM queen.partitions WHERE queue_id = $1 AND name = $2
