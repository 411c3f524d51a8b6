-- Retention cycle: moves cursors left below a range with no message in it up to the partition head, so
-- emptied partitions stop being candidates of wildcard pops.
-- $1 batch size (RETENTION_BATCH_SIZE).
SELECT queen.retention_repair_cursors($1::integer) AS count
